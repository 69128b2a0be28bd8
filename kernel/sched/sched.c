/*
 * sched: run queues, the context switch protocol, wake-ups, timed sleeps
 * and load balancing (see sched.h for the policy).
 *
 * Switch protocol: schedule() holds its CPU's run queue lock, with
 * interrupts off, across switch_context(); the thread switched to releases
 * it in sched_finish_switch(). A thread's on_cpu stays true until its
 * registers are saved, and a CPU that picks a thread last run elsewhere
 * waits for on_cpu to clear, so no two CPUs ever run on one kernel stack.
 * The IPC fast path's direct switch keeps the same rule without the run
 * queue lock: it clears the on_cpu of the thread it leaves once the
 * syscall entry has moved off that thread's stack (syscall_return()).
 */
#include "sched/sched.h"

#include "abi/errno.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/switch.h"
#include "arch/x86_64/timer.h"
#include "lib/panic.h"
#include "mm/heap.h"
#include "proc/process.h"
#include "sched/switch.h"
#include "sched/thread.h"
#include "trace/graph.h"
#include "trace/ktrace.h"

static struct spinlock timer_lock = SPINLOCK_INIT;
static struct list timed = LIST_INIT(timed); /* [timer_lock] via timer_node */

static void resched_ipi(struct trap_frame *f)
{
	(void)f;
	__atomic_store_n(&this_cpu()->need_resched, true, __ATOMIC_RELAXED);
}

void sched_init(void)
{
	idt_set_handler(VECTOR_RESCHED, resched_ipi);
}

static void enqueue_locked(struct cpu *c, struct thread *t)
{
	list_add_tail(&c->rq.ready, &t->run_node);
	c->rq.nready++;
}

/* Puts a READY thread on c's queue and makes c notice. */
static void enqueue(struct cpu *c, struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&c->rq.lock);
	enqueue_locked(c, t);
	spin_unlock_irqrestore(&c->rq.lock, flags);
	if (c == this_cpu()) {
		__atomic_store_n(&c->need_resched, true, __ATOMIC_RELAXED);
	} else {
		apic_send_ipi(c->apic_id, VECTOR_RESCHED);
	}
}

static struct cpu *least_loaded(void)
{
	struct cpu *best = this_cpu();
	uint32_t best_load = UINT32_MAX;

	for (uint32_t i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		uint32_t load = __atomic_load_n(&c->rq.nready, __ATOMIC_RELAXED) +
				(c->current != c->idle ? 1 : 0);
		if (load < best_load) {
			best = c;
			best_load = load;
		}
	}
	return best;
}

void sched_start(struct thread *t)
{
	uint32_t blocked = THREAD_BLOCKED;

	/*
	 * acq_rel: pairs with sched_wake()'s compare-and-swap. A kill may have
	 * woken the new thread first (it is on its process's list, so
	 * process_exit() finds it); then it is queued already, and runs only
	 * to exit.
	 */
	if (!__atomic_compare_exchange_n(&t->state, &blocked, THREAD_READY, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		return;
	}
	struct cpu *c = t->pin_cpu >= 0 ? &cpus[t->pin_cpu] : least_loaded();
	t->cpu = c->id;
	enqueue(c, t);
}

static bool cpu_idle(const struct cpu *c)
{
	return __atomic_load_n(&c->current, __ATOMIC_RELAXED) == c->idle &&
	       !__atomic_load_n(&c->rq.nready, __ATOMIC_RELAXED);
}

/*
 * Where a woken thread goes: where it last ran if that CPU is idle (its
 * cache is warm), else any idle CPU, else back where it ran.
 */
static struct cpu *select_cpu(const struct thread *t)
{
	struct cpu *last = &cpus[__atomic_load_n(&t->cpu, __ATOMIC_RELAXED)];

	if (t->pin_cpu >= 0) {
		return &cpus[t->pin_cpu];
	}
	if (cpu_idle(last)) {
		return last;
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		if (cpu_idle(&cpus[i])) {
			return &cpus[i];
		}
	}
	return last;
}

void sched_wake(struct thread *t, uint8_t reason)
{
	uint32_t state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

	for (;;) {
		if (state != THREAD_BLOCKED && state != THREAD_SLEEPING) {
			return;
		}
		/* acq_rel: only one waker wins; pairs with the store in waitq_sleep() */
		if (__atomic_compare_exchange_n(&t->state, &state, THREAD_READY, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			break;
		}
	}
	t->wake_reason = reason;
	struct cpu *target = select_cpu(t);
	TTRACE(sched_wakeup, t->tid, target->id);
	enqueue(target, t);
}

void sched_kick(struct thread *t)
{
	uint32_t cpu = __atomic_load_n(&t->cpu, __ATOMIC_RELAXED);

	if (cpu != this_cpu()->id &&
	    __atomic_load_n(&t->state, __ATOMIC_RELAXED) == THREAD_RUNNING) {
		apic_send_ipi(cpus[cpu].apic_id, VECTOR_RESCHED);
	}
}

/*
 * The oldest thread of queue q whose registers are saved (on_cpu false):
 * one still switching out on another CPU is left for later, so that two
 * CPUs never wait for each other's outgoing thread. rq lock held.
 */
static struct thread *first_runnable(struct list *q, bool unpinned_only)
{
	struct list *pos;

	list_for_each(pos, q)
	{
		struct thread *t = list_entry(pos, struct thread, run_node);
		/*
		 * acquire: pairs with the release of on_cpu in
		 * sched_finish_switch() or syscall_return()
		 */
		if (!__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE) &&
		    (!unpinned_only || t->pin_cpu < 0)) {
			return t;
		}
	}
	return NULL;
}

/* Takes one ready thread from the busiest other CPU; c's lock is held. */
static struct thread *steal(struct cpu *c)
{
	struct cpu *busiest = NULL;
	uint32_t most = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		uint32_t n = __atomic_load_n(&cpus[i].rq.nready, __ATOMIC_RELAXED);
		if (&cpus[i] != c && n > most) {
			busiest = &cpus[i];
			most = n;
		}
	}
	/* trylock: two CPUs stealing from each other must not deadlock. */
	if (!busiest || !spin_trylock(&busiest->rq.lock)) {
		return NULL;
	}
	struct thread *t = first_runnable(&busiest->rq.ready, true);
	if (t) {
		list_remove(&t->run_node);
		busiest->rq.nready--;
	}
	spin_unlock(&busiest->rq.lock);
	return t;
}

static struct thread *pick_next(struct cpu *c)
{
	struct thread *t = first_runnable(&c->rq.ready, false);

	if (t) {
		list_remove(&t->run_node);
		c->rq.nready--;
		return t;
	}
	if (c->rq.nready) {
		/* All still switching out elsewhere: look again very soon. */
		__atomic_store_n(&c->need_resched, true, __ATOMIC_RELAXED);
	}
	t = steal(c);
	return t ? t : c->idle;
}

/*
 * Switches from prev to next on c, whose run queue lock is held with
 * interrupts off; sched_finish_switch() releases it in next.
 */
static void switch_to(struct cpu *c, struct thread *prev, struct thread *next)
{
	switch_prepare(c, prev, next, false);
	c->switched_from = prev;
	switch_context(&prev->kernel_rsp, next->kernel_rsp);
	sched_finish_switch();
}

void schedule(void)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();
	struct thread *prev = c->current;

	/* relaxed: only this CPU's own tick reads it (watchdog.c) */
	__atomic_store_n(&c->progressed, true, __ATOMIC_RELAXED);
	spin_lock(&c->rq.lock);
	__atomic_store_n(&c->need_resched, false, __ATOMIC_RELAXED);
	if (prev != c->idle && __atomic_load_n(&prev->state, __ATOMIC_RELAXED) == THREAD_RUNNING) {
		__atomic_store_n(&prev->state, THREAD_READY, __ATOMIC_RELAXED);
		enqueue_locked(c, prev);
	}
	struct thread *next = pick_next(c);
	if (next == prev) {
		__atomic_store_n(&next->state, THREAD_RUNNING, __ATOMIC_RELAXED);
		spin_unlock(&c->rq.lock);
	} else {
		switch_to(c, prev, next);
	}
	irq_restore(flags);
}

void sched_handoff(struct thread *next)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->current;
	uint64_t abandoned;

	/*
	 * next is claimed, READY on no run queue: nobody else can take it. So
	 * wait for it to leave its old CPU before taking our run queue lock,
	 * not under it: that CPU may need our lock on its way out (to wake a
	 * thread onto this CPU) and would never get it (ipctest wakerace).
	 */
	switch_wait_off_cpu(next);
	spin_lock(&c->rq.lock);
	/*
	 * prev is a user thread in a system call (sched.h): this CPU has its
	 * process's address space loaded, which nothing in the kernel changes
	 * under a running thread but its own exit (process_teardown()), which
	 * never hands off. So a next of the same process needs no CR3 work.
	 */
	switch_prepare(c, prev, next, next->proc == prev->proc);
	c->switched_from = prev;
	/* prev's stack holds nothing to come back to: it resumes where prev->kernel_rsp says. */
	switch_context(&abandoned, next->kernel_rsp);
	__builtin_unreachable();
}

void sched_pin(int cpu)
{
	struct thread *t = thread_current();
	uint64_t flags = irq_save();

	t->pin_cpu = cpu;
	if (cpu >= 0 && (uint32_t)cpu != this_cpu()->id) {
		/* Move by waking ourselves on the target CPU, then leaving this one. */
		__atomic_store_n(&t->state, THREAD_BLOCKED, __ATOMIC_RELAXED);
		__atomic_store_n(&t->cpu, (uint32_t)cpu, __ATOMIC_RELAXED);
		sched_wake(t, WAKE_EVENT);
		schedule();
	}
	irq_restore(flags);
}

void sched_finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->switched_from;
	/* prev stays valid after on_cpu clears: an EXITED one is freed only once released. */
	bool exited = __atomic_load_n(&prev->state, __ATOMIC_RELAXED) == THREAD_EXITED;

	if (exited) {
		graph_thread_exit(prev); /* while prev is still ours: before its on_cpu clears */
	}
	/*
	 * release: prev's registers are saved; pairs with the acquire loads
	 * of on_cpu in switch_prepare() and first_runnable() (a CPU about to run
	 * or steal prev) and thread_free(); an EXITED prev's release, after
	 * it, is what process_teardown() waits for.
	 */
	__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	spin_unlock(&c->rq.lock);
	if (exited) {
		process_thread_released(prev);
	}
}

void sched_timer_add(struct thread *t, uint64_t deadline_ns)
{
	uint64_t flags = spin_lock_irqsave(&timer_lock);
	t->deadline_ns = deadline_ns;
	list_add_tail(&timed, &t->timer_node);
	spin_unlock_irqrestore(&timer_lock, flags);
}

void sched_timer_remove(struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&timer_lock);
	if (list_linked(&t->timer_node)) {
		list_remove(&t->timer_node);
	}
	spin_unlock_irqrestore(&timer_lock, flags);
}

static void expire_timers(void)
{
	uint64_t now = timer_now_ns();
	struct list *pos, *tmp;

	spin_lock(&timer_lock);
	list_for_each_safe(pos, tmp, &timed)
	{
		struct thread *t = list_entry(pos, struct thread, timer_node);
		if (t->deadline_ns <= now) {
			list_remove(&t->timer_node);
			sched_wake(t, WAKE_TIMEOUT);
		}
	}
	spin_unlock(&timer_lock);
}

int sched_sleep(uint64_t ns)
{
	struct thread *t = thread_current();
	uint64_t flags = irq_save();

	if (__atomic_load_n(&t->killed, __ATOMIC_RELAXED)) {
		irq_restore(flags);
		return -EINTR;
	}
	__atomic_store_n(&t->state, THREAD_SLEEPING, __ATOMIC_SEQ_CST);
	/* Saturated: a sleep past the end of time is a sleep for ever, not a wrapped short one. */
	uint64_t now = timer_now_ns();
	sched_timer_add(t, ns > UINT64_MAX - now ? UINT64_MAX : now + ns);
	sched_block_check_kill(t);
	schedule();
	sched_timer_remove(t);
	irq_restore(flags);
	return t->wake_reason == WAKE_KILL ? -EINTR : 0;
}

static bool work_elsewhere(struct cpu *c)
{
	for (uint32_t i = 0; i < ncpus; i++) {
		if (&cpus[i] != c && __atomic_load_n(&cpus[i].rq.nready, __ATOMIC_RELAXED)) {
			return true;
		}
	}
	return false;
}

/* Interrupt context, interrupts off. */
void sched_tick(void)
{
	struct cpu *c = this_cpu();

	if (c->id == 0) {
		expire_timers();
	}
	if (c->current != c->idle && __atomic_load_n(&c->rq.nready, __ATOMIC_RELAXED)) {
		__atomic_store_n(&c->need_resched, true, __ATOMIC_RELAXED);
	}
	/* Balancing: an idle CPU looks for work to steal once a tick. */
	if (c->current == c->idle && work_elsewhere(c)) {
		__atomic_store_n(&c->need_resched, true, __ATOMIC_RELAXED);
	}
}

void sched_idle_loop(void)
{
	struct cpu *c = this_cpu();

	for (;;) {
		irq_disable();
		if (__atomic_load_n(&c->need_resched, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&c->rq.nready, __ATOMIC_RELAXED)) {
			schedule();
			irq_enable();
			continue;
		}
		cpu_idle_once(); /* sti; hlt: a wake-up IPI cannot slip in between */
	}
}

void sched_return_to_user(void)
{
	struct thread *t = thread_current();

	/* relaxed: only this CPU's own tick reads it (watchdog.c) */
	__atomic_store_n(&this_cpu()->progressed, true, __ATOMIC_RELAXED);
	for (;;) {
		if (__atomic_load_n(&t->killed, __ATOMIC_RELAXED)) {
			irq_enable();
			thread_exit(0);
		}
		if (!__atomic_load_n(&this_cpu()->need_resched, __ATOMIC_RELAXED)) {
			return;
		}
		schedule();
	}
}

__attribute__((cold)) void switch_events_requiet(struct cpu *c, struct thread *prev,
						 struct thread *next, uint32_t from)
{
	if (c->trace_quiet) {
		/*
		 * Away from a quiet thread: recorded as the incoming thread's
		 * event (switch_prepare() sets the same ids again), so no event
		 * carries the quiet process's pid.
		 */
		ttrace_view_set(c, false);
		c->trace_ids = next->trace_ids;
		switch_events(c, prev, next, from);
	} else {
		switch_events(c, prev, next, from);
		ttrace_view_set(c, true);
	}
}
