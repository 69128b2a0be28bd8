/*
 * wait: sleeping on wait queues (see wait.h), and the mutex.
 */
#include "sched/wait.h"

#include "abi/errno.h"
#include "sched/sched.h"
#include "sched/thread.h"

void waitq_init(struct waitq *wq)
{
	wq->lock = (struct spinlock)SPINLOCK_INIT;
	list_init(&wq->waiters);
}

int waitq_sleep(struct waitq *wq, uint64_t deadline_ns, unsigned flags)
{
	struct thread *t = thread_current();
	bool killable = flags & WAIT_KILLABLE;

	if (killable && __atomic_load_n(&t->killed, __ATOMIC_RELAXED)) {
		return -EINTR;
	}
	t->wake_reason = WAKE_EVENT;
	/* seq_cst: pairs with sched_wake()'s compare-and-swap and thread_kill() */
	__atomic_store_n(&t->state, THREAD_BLOCKED, __ATOMIC_SEQ_CST);
	list_add_tail(&wq->waiters, &t->wait_node);
	if (deadline_ns) {
		sched_timer_add(t, deadline_ns);
	}
	spin_unlock(&wq->lock); /* interrupts stay off until schedule() is done */
	if (killable) {
		sched_block_check_kill(t);
	}
	schedule();
	if (deadline_ns) {
		sched_timer_remove(t);
	}
	spin_lock(&wq->lock);
	if (list_linked(&t->wait_node)) {
		list_remove(&t->wait_node);
	}
	switch (t->wake_reason) {
	case WAKE_TIMEOUT:
		return -ETIMEDOUT;
	case WAKE_KILL:
		return killable ? -EINTR : 0;
	default:
		return 0;
	}
}

static void wake(struct waitq *wq, bool all)
{
	struct list *node;

	while ((node = list_pop(&wq->waiters))) {
		sched_wake(list_entry(node, struct thread, wait_node), WAKE_EVENT);
		if (!all) {
			return;
		}
	}
}

void waitq_wake_all(struct waitq *wq)
{
	wake(wq, true);
}

void waitq_wake_one(struct waitq *wq)
{
	wake(wq, false);
}

void mutex_init(struct mutex *m)
{
	waitq_init(&m->wq);
	m->held = false;
}

void mutex_lock(struct mutex *m)
{
	uint64_t flags = spin_lock_irqsave(&m->wq.lock);

	while (m->held) {
		waitq_sleep(&m->wq, 0, 0);
	}
	m->held = true;
	spin_unlock_irqrestore(&m->wq.lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	uint64_t flags = spin_lock_irqsave(&m->wq.lock);

	m->held = false;
	waitq_wake_one(&m->wq);
	spin_unlock_irqrestore(&m->wq.lock, flags);
}
