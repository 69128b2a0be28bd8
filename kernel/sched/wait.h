/*
 * wait: wait queues, and the mutex built on them.
 *
 * A thread sleeps on a wait queue holding the queue's lock (taken with
 * spin_lock_irqsave), which waitq_sleep() drops while the thread is off
 * the CPU and takes again before returning. Wakers hold the same lock, so
 * a wake-up between "condition false" and "asleep" cannot be lost.
 * Callers re-check their condition after every return.
 */
#ifndef SPOOR_SCHED_WAIT_H
#define SPOOR_SCHED_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "lib/spinlock.h"

struct waitq {
	struct spinlock lock;
	struct list waiters; /* [lock] threads, via wait_node */
};

#define WAITQ_INIT(name)                                                                           \
	{                                                                                          \
		SPINLOCK_INIT, LIST_INIT((name).waiters)                                           \
	}

void waitq_init(struct waitq *wq);

/* Flags for waitq_sleep. */
#define WAIT_KILLABLE (1u << 0) /* a kill ends the sleep with -EINTR */

/*
 * Sleeps until woken, until deadline_ns (clock time, 0 for none), or, with
 * WAIT_KILLABLE, until the thread is killed. Called and returns with
 * wq->lock held and interrupts off. Returns 0, -ETIMEDOUT or -EINTR.
 */
int waitq_sleep(struct waitq *wq, uint64_t deadline_ns, unsigned flags);

/* Wakes every sleeper / the oldest one; called with wq->lock held. */
void waitq_wake_all(struct waitq *wq);
void waitq_wake_one(struct waitq *wq);

/* A sleeping lock, for long sections that may wait for other CPUs. */
struct mutex {
	struct waitq wq;
	bool held; /* [wq.lock] */
};

void mutex_init(struct mutex *m);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

#endif
