/*
 * smp: starting the application processors and running a function on the
 * other CPUs.
 */
#ifndef SPOOR_ARCH_SMP_H
#define SPOOR_ARCH_SMP_H

#include <stdint.h>

#include "arch/x86_64/percpu.h"

/*
 * Boot CPU: starts the CPUs the MADT lists, at most max_cpus in all
 * (counting itself), one at a time, each at entry(c) on its own stack
 * with the boot page tables. Each is to set itself up, call
 * smp_cpu_online() once it ticks with interrupts on, and idle. A CPU that
 * has not begun to run by the time the boot CPU has run for a second is
 * said so and parked, and its slot zeroed for the next; one that has
 * begun is waited for until it is online. Interrupts on: the wait counts
 * the boot CPU's ticks. Sets ncpus to the CPUs online.
 */
void smp_start_aps(uint32_t max_cpus, void (*entry)(struct cpu *c));

/* A CPU says it is online: others may now call it (smp_call_others()). */
void smp_cpu_online(struct cpu *c);

/*
 * Runs fn(arg) on every other online CPU, in interrupt context, and
 * returns when all have finished. Must be called with interrupts enabled
 * and no spinlock held: the targets may need this CPU to answer a call.
 */
void smp_call_others(void (*fn)(void *arg), void *arg);

/* smp_call_others() for the other online CPUs in mask only (bit i: the CPU of id i). */
void smp_call_some(uint64_t mask, void (*fn)(void *arg), void *arg);

/*
 * Runs fn(arg) on this CPU, interrupts off, while every other online CPU
 * waits in an interrupt handler with interrupts off: no other CPU is
 * inside any instruction or holds any spinlock while fn runs (spinlocks
 * are held with interrupts off). Each executes a serialising instruction
 * before it goes on, so fn may change kernel code (SDM 3A 8.1.3); one
 * stopped inside a restartable range goes on from the range's start
 * (restart.h). fn must not wait for another CPU. Same calling rules as
 * smp_call_others(); with one CPU online, fn simply runs. Returns 0, or
 * -ECPUSTUCK without running fn when a CPU did not stop within
 * SMP_STOP_WAIT_MS (one stuck with interrupts masked, or one that has not
 * yet answered an earlier stop that gave up): the CPUs that did stop go
 * on, nothing changed.
 */
#define SMP_STOP_WAIT_MS 2000 /* far above a vCPU the host leaves unscheduled a while */
int smp_stop_others(void (*fn)(void *arg), void *arg);

/*
 * Waits up to timeout_ms for every online CPU to have taken at least
 * min_ticks timer interrupts. Returns the number of CPUs that did not.
 */
uint32_t smp_wait_ticking(uint64_t min_ticks, uint64_t timeout_ms);

#endif
