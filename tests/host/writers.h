/*
 * writers: the kernel's two ring writers, as the host tests and the
 * benchmark run them.
 *
 * The straight path is ttrace_write_here() of kernel/trace/tracepoint.h,
 * the instructions every enabled tracepoint runs while no extra is on. It
 * reads its ring, the pid and tid and the context through %gs. On x86_64
 * Linux a thread may set its own GS base (arch_prctl(ARCH_SET_GS)):
 * host_cpu_enter() points the calling thread's at a simulated struct cpu
 * whose trace view is a ring, so the thread runs the kernel's own
 * instructions on it, as that CPU. Nothing else in a host process uses
 * %gs (glibc and the sanitizers keep their thread data behind %fs), and a
 * signal handler runs with the GS base of the thread it interrupted, as
 * an interrupt handler runs with its CPU's.
 *
 * The slow path is ttrace_emit_full() (and ttrace_emit_user()) of
 * kernel/trace/emit.c, whose ring write is ttrace_ring_reserve() then
 * ttrace_ring_commit() of kernel/trace/ring_write.c: host_slow_write()
 * takes those two steps. The kernel reads the clock between masking
 * interrupts and reserving; the host tests put the ts they want in the
 * event instead, so that they can check it exactly.
 */
#ifndef SPOOR_TESTS_HOST_WRITERS_H
#define SPOOR_TESTS_HOST_WRITERS_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/percpu.h"
#include "common/trace_ring.h"
#include "trace/ring_write.h"
#include "trace/tracepoint.h"

/*
 * Makes *c the CPU of ring r (its id r->cpu), wired as
 * ttrace_cpu_online() and ttrace_view_set() wire a CPU that is not quiet,
 * running pid 0 and tid 0 in the kernel's context, and points the calling
 * thread's GS base at it. Aborts if the host refuses: no test of the
 * straight path can go on without it. c must outlive the thread's use.
 */
void host_cpu_enter(struct cpu *c, const struct ttrace_ring *r);

/* The pid and tid the straight path writes from now on on this thread's CPU, as a switch sets them.
 */
void host_cpu_ids(uint32_t pid, uint32_t tid);

/*
 * The slow path's write of ev into r: its slots reserved, then committed.
 * False if drop mode dropped it (counted in dropped).
 */
bool host_slow_write(struct ttrace_ring *r, const struct ttrace_event *ev);

#endif
