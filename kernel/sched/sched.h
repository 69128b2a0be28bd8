/*
 * sched: preemptive round-robin scheduling on per-CPU run queues.
 *
 * A thread runs until it blocks, yields, or its CPU's timer tick finds
 * others waiting; preemption happens only on the way back to user mode
 * and at the preemption points of the kernel's long loops
 * (sched_preempt_point()): the kernel is not preemptible otherwise.
 * Woken threads go back to the CPU they last ran on; a CPU with nothing
 * to run steals from the busiest one, and new threads start on the least
 * loaded CPU.
 *
 * Lock order: a wait queue's lock, then the timer lock, then run queue
 * locks. A CPU never holds two run queue locks except through trylock.
 */
#ifndef SPOOR_SCHED_SCHED_H
#define SPOOR_SCHED_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/thread.h"

/* Boot CPU, once: the resched IPI and the timer hooks. */
void sched_init(void);

/* Gives up the CPU; the current thread keeps its state (READY if RUNNING). */
void schedule(void);

/*
 * The IPC fast path's direct switch. sched_claim() takes a BLOCKED thread
 * for this CPU: it returns false, having done nothing, if next may not run
 * here or was woken meanwhile; on true, next is READY on no run queue, so
 * no wake-up can run it, and the caller must hand it the CPU before it
 * enables interrupts: with sched_handoff(), or, for a next that resumes in
 * user mode, with switch_prepare() (switch.h). sched_handoff() switches
 * from the current thread, which the caller has made BLOCKED and whose
 * kernel_rsp it has pointed at where it is to resume, to the claimed next,
 * resuming it where it last switched away, without touching a run queue.
 * It does not return: the current thread's stack is abandoned. The current
 * thread must be a user thread in a system call. Interrupts off for both;
 * sched_claim() is inline, as the fast path asks it on every round trip.
 */
static inline bool sched_claim(struct thread *next)
{
	uint32_t blocked = THREAD_BLOCKED;

	if (next->pin_cpu >= 0 && (uint32_t)next->pin_cpu != this_cpu()->id) {
		return false;
	}
	/*
	 * acq_rel: claims next against a timer or kill waking it; pairs with
	 * sched_wake(). READY on no queue: switch_prepare() makes it RUNNING.
	 */
	if (!__atomic_compare_exchange_n(&next->state, &blocked, THREAD_READY, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		return false;
	}
	next->wake_reason = WAKE_EVENT;
	return true;
}

__attribute__((noreturn)) void sched_handoff(struct thread *next);

/* Pins the calling thread to cpu (moving it there), or unpins it for -1. */
void sched_pin(int cpu);

/*
 * Makes a new thread (BLOCKED on no queue, from thread_create_user) ready
 * on the least loaded CPU, unless a kill has woken it already.
 */
void sched_start(struct thread *t);

/*
 * Makes a BLOCKED or SLEEPING thread ready with the given reason
 * (WAKE_*); does nothing for a thread in another state.
 */
void sched_wake(struct thread *t, uint8_t reason);

/* Puts t on the timed list: it is woken with WAKE_TIMEOUT at deadline_ns. */
void sched_timer_add(struct thread *t, uint64_t deadline_ns);
void sched_timer_remove(struct thread *t);

/*
 * Called by a thread that made itself BLOCKED (with a seq_cst store) and
 * is about to schedule() away: if it was killed meanwhile, thread_kill()
 * may have found it still RUNNING, so it wakes itself. Inline: every
 * blocking IPC asks, and the answer is nearly always no.
 */
static inline void sched_block_check_kill(struct thread *t)
{
	/* seq_cst: pairs with the store of killed in thread_kill() */
	if (__builtin_expect(__atomic_load_n(&t->killed, __ATOMIC_SEQ_CST), 0)) {
		sched_wake(t, WAKE_KILL);
	}
}

/* Sleeps for ns nanoseconds. 0, or -EINTR when killed. */
int sched_sleep(uint64_t ns);

/* Called on every timer interrupt. */
void sched_tick(void);

/* Runs forever as the CPU's idle thread. */
__attribute__((noreturn)) void sched_idle_loop(void);

/* On the way back to user mode: reschedule if asked, exit if killed. */
void sched_return_to_user(void);

/*
 * sched_return_to_user() for the syscall exit, which nearly always has
 * nothing to do: the two flags it looks at first are checked inline, and
 * only a thread with work calls it (it checks them again itself). Relaxed
 * loads suffice for the same reason as there: a kill or a resched request
 * that lands after the check is seen at the next return to user mode (a
 * resched IPI or tick interrupt returns through sched_return_to_user()).
 */
static inline void sched_syscall_return(void)
{
	if (__builtin_expect(__atomic_load_n(&thread_current()->killed, __ATOMIC_RELAXED) ||
				 __atomic_load_n(&this_cpu()->need_resched, __ATOMIC_RELAXED),
			     0)) {
		sched_return_to_user();
	}
}

/*
 * A preemption point, for the kernel loops whose length user space
 * chooses (a long console write, a large commit or copy, the teardown of a
 * large address space): schedules if this CPU was asked to, because others
 * wait for it or because the lockup detector waits for its progress
 * (watchdog.h). The kernel is not preemptible otherwise, so a system call
 * that loops without one holds its CPU until it returns. The caller holds
 * no spinlock and has interrupts on; it may hold mutexes. One load when
 * nothing is asked. The idle thread does not stop here: it runs kmain's
 * last steps (start_init(), which loads a program) and leaves the CPU only
 * from its loop.
 */
static inline void sched_preempt_point(void)
{
	struct cpu *c = this_cpu(); /* ours until we schedule: nothing else moves us */

	if (__builtin_expect(__atomic_load_n(&c->need_resched, __ATOMIC_RELAXED), 0) &&
	    c->current != c->idle) {
		schedule();
	}
}

/* Asks the CPU running t (if another) to look at it soon. */
void sched_kick(struct thread *t);

/* Bookkeeping after a context switch; runs first in every switched-to thread. */
void sched_finish_switch(void);

#endif
