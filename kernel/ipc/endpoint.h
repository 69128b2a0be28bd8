/*
 * endpoint: the endpoint object, ipc_lock and the counts of the references
 * to an endpoint, private to kernel/ipc (the contract is ipc.h).
 *
 * ipc_lock guards all IPC state: every endpoint's queues, counts and
 * signal bits, and every thread's struct ipc_state (ipc.h). It is taken
 * after a cspace's lock (endpoint references are counted under both) and
 * before any scheduler lock. Capability references are never dropped under
 * it: dropping an endpoint capability takes the lock itself.
 *
 * The helpers below are static inline, as they were when all of kernel/ipc
 * was one file: the operations (ipc.c), endpoint.c and signal.c compile
 * them into their own code, and the fast path's instructions stay the
 * ones make bench counts.
 */
#ifndef SPOOR_IPC_ENDPOINT_H
#define SPOOR_IPC_ENDPOINT_H

#include <stdint.h>

#include "abi/errno.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "sched/sched.h"
#include "sched/thread.h"

struct endpoint {
	uint32_t refs;	     /* [a] */
	uint32_t id;	     /* [I] names it in trace events */
	uint32_t callers;    /* [ipc] references with the write right */
	uint32_t receivers;  /* [ipc] references with the read right */
	struct list senders; /* [ipc] threads IPC_SENDING, oldest first */
	struct list waiting; /* [ipc] threads IPC_RECEIVING, oldest first */
	uint64_t signal;     /* [ipc] bits signalled that no receive has taken yet */
};

extern struct spinlock ipc_lock;

/* The thread queued or linked through node, its ipc.node. */
static inline struct thread *thread_of(struct list *node)
{
	return list_entry(node, struct thread, ipc.node);
}

/* Ends t's operation with result and wakes it. ipc_lock held. */
static inline void finish(struct thread *t, int result)
{
	t->ipc.result = result;
	t->ipc.phase = IPC_DONE;
	sched_wake(t, WAKE_EVENT);
}

/* Ends the operation of every thread in queue with result. ipc_lock held. */
static inline void fail_queue(struct list *queue, int result)
{
	struct list *node;

	while ((node = list_pop(queue))) {
		struct thread *t = thread_of(node);
		t->ipc.ep = NULL;
		finish(t, result);
	}
}

/* Counts a reference with rights. ipc_lock held. */
static inline void count_ref(struct endpoint *ep, uint32_t rights)
{
	__atomic_fetch_add(&ep->refs, 1, __ATOMIC_RELAXED);
	ep->callers += rights & CAP_RIGHT_WRITE ? 1 : 0;
	ep->receivers += rights & CAP_RIGHT_READ ? 1 : 0;
}

/*
 * Takes a reference's rights off the counts; a side left with none fails
 * the other side's queue. ipc_lock held; unref() follows, outside it.
 */
static inline void uncount_rights(struct endpoint *ep, uint32_t rights)
{
	if (rights & CAP_RIGHT_WRITE && !--ep->callers) {
		fail_queue(&ep->waiting, -EPIPE); /* nobody can call any more */
	}
	if (rights & CAP_RIGHT_READ && !--ep->receivers) {
		fail_queue(&ep->senders, -EPIPE); /* nobody can receive any more */
	}
}

/* Drops the reference whose rights uncount_rights() took off, if ep. ipc_lock not held. */
static inline void unref(struct endpoint *ep)
{
	/* acq_rel: the last put sees every use through other references */
	if (ep && !__atomic_sub_fetch(&ep->refs, 1, __ATOMIC_ACQ_REL)) {
		kfree(ep);
	}
}

#endif
