/*
 * smp: starting the application processors and running a function on the
 * other CPUs.
 */
#ifndef SPOOR_ARCH_SMP_H
#define SPOOR_ARCH_SMP_H

#include <stdint.h>

/*
 * Boot CPU: starts the CPUs the MADT lists, at most max_cpus in all
 * (counting itself), one at a time. Each comes up ticking with interrupts
 * on and idles. Sets ncpus.
 */
void smp_start_aps(uint32_t max_cpus);

/*
 * Runs fn(arg) on every other online CPU, in interrupt context, and
 * returns when all have finished. Must be called with interrupts enabled
 * and no spinlock held: the targets may need this CPU to answer a call.
 */
void smp_call_others(void (*fn)(void *arg), void *arg);

/*
 * Waits up to timeout_ms for every online CPU to have taken at least
 * min_ticks timer interrupts. Returns the number of CPUs that did not.
 */
uint32_t smp_wait_ticking(uint64_t min_ticks, uint64_t timeout_ms);

#endif
