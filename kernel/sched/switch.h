/*
 * switch: what every switch from one thread to another on a CPU does
 * before the stacks change, shared by the scheduler's switch (sched.c) and
 * the IPC fast path's direct switch to a thread that resumes in user mode
 * (ipc.c). Private to the two.
 */
#ifndef SPOOR_SCHED_SWITCH_H
#define SPOOR_SCHED_SWITCH_H

#include <stdbool.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "trace/ktrace.h"

/* Charges prev the time it ran; next starts running now. */
static inline void switch_account(struct cpu *c, struct thread *prev, struct thread *next)
{
	uint64_t now = timer_now_ns();
	uint64_t ran = now - prev->run_start_ns;

	prev->cpu_ns += ran;
	if (prev == c->idle) {
		c->idle_ns += ran;
	}
	next->run_start_ns = now;
}

/* Waits until next's registers are saved and its old CPU is off its stack. */
static inline void switch_wait_off_cpu(const struct thread *next)
{
	/* acquire: pairs with the release of on_cpu by whoever left its stack */
	while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE)) {
		cpu_relax();
	}
}

/* A switch's events: next's migration from CPU from, if it moved, and the switch. */
static inline __attribute__((always_inline)) void switch_events(struct cpu *c, struct thread *prev,
								struct thread *next, uint32_t from)
{
	if (from != c->id) {
		TTRACE(sched_migrate, next->tid, from, c->id);
	}
	TTRACE(sched_switch, prev->tid, __atomic_load_n(&prev->state, __ATOMIC_RELAXED), next->tid);
}

/*
 * A switch between a quiet process's thread and another's (abi/trace.h
 * TTRACE_OP_QUIET): c's view of its ring follows next, so a quiet
 * thread's events go where nobody reads. The switch's own events are
 * recorded, since one side is not quiet: the view turns away from the
 * ring after them, or back to it before them, which then carry the
 * incoming thread's pid and tid: no event carries a quiet process's. Out of line, once (sched.c):
 * the usual switch, between two threads alike, pays one compare for it.
 */
void switch_events_requiet(struct cpu *c, struct thread *prev, struct thread *next, uint32_t from);

/*
 * Makes next, READY on no run queue, the thread running on c in place of
 * prev, as far as anything but the stack goes: interrupts off. Waits for
 * next's registers to be saved on its old CPU first. space_loaded says
 * that next's address space is this CPU's already (CR3 and its user_pml4
 * published for shootdowns), so process_activate() is skipped. prev stays
 * on_cpu: whoever leaves its stack releases it.
 */
static inline __attribute__((always_inline)) void
switch_prepare(struct cpu *c, struct thread *prev, struct thread *next, bool space_loaded)
{
	switch_wait_off_cpu(next);
	/*
	 * RUNNING only now: until its old CPU has switched away from it, that
	 * CPU's schedule() must see it READY, or it would queue it again.
	 */
	__atomic_store_n(&next->state, THREAD_RUNNING, __ATOMIC_RELAXED);
	next->on_cpu = true;
	uint32_t from = __atomic_load_n(&next->cpu, __ATOMIC_RELAXED);
	/* relaxed: a switch racing QUIET may go either way; the next one follows it */
	if (__builtin_expect(
		c->trace_quiet != __atomic_load_n(&next->trace_quiet, __ATOMIC_RELAXED), 0)) {
		switch_events_requiet(c, prev, next, from);
	} else {
		switch_events(c, prev, next, from);
	}
	__atomic_store_n(&next->cpu, c->id, __ATOMIC_RELAXED);
	switch_account(c, prev, next);
	c->current = next;
	/* what their events carry: prev's context is kept with it until it runs again */
	prev->trace_ctx = percpu_trace_ctx();
	percpu_set_trace_ctx(next->trace_ctx);
	c->trace_ids = next->trace_ids;
	c->kstack_top = (uintptr_t)(next->kstack + KSTACK_SIZE);
	c->tss.rsp[0] = c->kstack_top;
	if (!space_loaded) {
		process_activate(next->proc);
	}
}

#endif
