/*
 * ipc: endpoints, message transfer, the reply link, failure handling and
 * the fast path (see ipc.h and abi/ipc.h).
 *
 * Blocking: a thread marks itself BLOCKED and queues or links itself under
 * ipc_lock; its partner finishes the operation under the same lock (phase
 * IPC_DONE, result) and wakes it — or, on the fast path, switches to it
 * directly. A thread woken otherwise (timeout, kill) cancels what is left
 * of its operation under the lock, so no wake-up is ever lost and no link
 * is left dangling. Capability references are never dropped under
 * ipc_lock: dropping an endpoint capability takes the lock itself.
 */
#include "ipc/ipc.h"

#include "abi/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/trace.h"

struct endpoint {
	uint32_t refs;	     /* [a] */
	uint32_t id;	     /* [I] names it in trace events */
	uint32_t callers;    /* [ipc] references with the write right */
	uint32_t receivers;  /* [ipc] references with the read right */
	struct list senders; /* [ipc] threads IPC_SENDING, oldest first */
	struct list waiting; /* [ipc] threads IPC_RECEIVING, oldest first */
};

static struct spinlock ipc_lock = SPINLOCK_INIT;
static uint32_t next_endpoint_id = 1; /* [a] */

static struct thread *thread_of(struct list *node)
{
	return list_entry(node, struct thread, ipc.node);
}

void ipc_thread_init(struct thread *t)
{
	list_init(&t->ipc.node);
}

int ipc_buffer_ensure(struct thread *t)
{
	uint64_t pa;

	if (t->ipc.msg.buf) {
		return 0;
	}
	if (pmm_alloc_frames(1, &pa)) {
		return -ENOMEM;
	}
	t->ipc.msg.buf = phys_to_virt(pa);
	return 0;
}

void ipc_thread_free(struct thread *t)
{
	if (t->ipc.msg.buf) {
		pmm_free_frames(virt_to_phys(t->ipc.msg.buf), 1);
	}
}

/* Ends t's operation with result and wakes it. ipc_lock held. */
static void finish(struct thread *t, int result)
{
	t->ipc.result = result;
	t->ipc.phase = IPC_DONE;
	sched_wake(t, WAKE_EVENT);
}

static void fail_queue(struct list *queue, int result)
{
	struct list *node;

	while ((node = list_pop(queue))) {
		struct thread *t = thread_of(node);
		t->ipc.ep = NULL;
		finish(t, result);
	}
}

/* Copies src's message into dst's; moves the capability. ipc_lock held. */
static void transfer(struct thread *dst, struct thread *src)
{
	struct ipc_msg *d = &dst->ipc.msg;
	struct ipc_msg *s = &src->ipc.msg;

	d->info = s->info;
	memcpy(d->words, s->words, sizeof(d->words));
	d->badge = s->badge;
	d->len = s->len;
	if (s->len) {
		memcpy(d->buf, s->buf, s->len); /* recv_max >= len made dst allocate it */
	}
	d->has_cap = s->has_cap;
	d->cap = s->cap;
	s->has_cap = false;
}

static void block_current(struct thread *t, uint64_t deadline_ns)
{
	t->wake_reason = WAKE_EVENT;
	/* seq_cst: pairs with sched_wake()'s compare-and-swap and thread_kill() */
	__atomic_store_n(&t->state, THREAD_BLOCKED, __ATOMIC_SEQ_CST);
	if (deadline_ns) {
		sched_timer_add(t, deadline_ns);
	}
}

/* Takes back an operation a timeout or kill interrupted. ipc_lock held. */
static int cancel(struct thread *t)
{
	switch (t->ipc.phase) {
	case IPC_SENDING:
	case IPC_RECEIVING:
		list_remove(&t->ipc.node);
		t->ipc.ep = NULL;
		break;
	case IPC_AWAIT_REPLY:
		if (t->ipc.replier) {
			t->ipc.replier->ipc.reply_to = NULL;
			t->ipc.replier = NULL;
		}
		break;
	default:
		break;
	}
	return t->wake_reason == WAKE_KILL ? -EINTR : -ETIMEDOUT;
}

/*
 * Gives up the CPU until the operation is done: to partner directly when
 * fast and possible, else through the scheduler. Called with ipc_lock held
 * (taken with spin_lock_irqsave into flags); returns the result with the
 * lock dropped and interrupts as they were.
 */
static int wait_done(struct thread *t, const struct endpoint *ep, struct thread *partner, bool fast,
		     uint64_t deadline_ns, uint64_t flags)
{
	uint32_t label = IPC_INFO_LABEL(t->ipc.msg.info);

	spin_unlock(&ipc_lock); /* interrupts stay off until we are switched out */
	sched_block_check_kill(t);
	if (partner && fast && sched_handoff(partner)) {
		TTRACE(ipc_fastpath, ep->id, label, partner->tid);
	} else {
		if (partner) {
			TTRACE(ipc_slowpath, ep->id, label, partner->tid);
			sched_wake(partner, WAKE_EVENT);
		}
		schedule();
	}
	if (deadline_ns) {
		sched_timer_remove(t);
	}
	spin_lock(&ipc_lock);
	int result = t->ipc.phase == IPC_DONE ? t->ipc.result : cancel(t);
	t->ipc.phase = IPC_IDLE;
	spin_unlock_irqrestore(&ipc_lock, flags);
	return result;
}

/* Links caller to server: server now owes caller a reply. ipc_lock held. */
static void take_call(struct endpoint *ep, struct thread *server, struct thread *caller)
{
	TTRACE(ipc_recv, ep->id, IPC_INFO_LABEL(caller->ipc.msg.info), caller->tid);
	transfer(server, caller);
	server->ipc.reply_to = caller;
	caller->ipc.replier = server;
	caller->ipc.phase = IPC_AWAIT_REPLY;
}

/* A caller still waiting for a reply we will never send gets -EPIPE. ipc_lock held. */
static void drop_reply(struct thread *server)
{
	struct thread *caller = server->ipc.reply_to;

	if (caller) {
		server->ipc.reply_to = NULL;
		caller->ipc.replier = NULL;
		finish(caller, -EPIPE);
	}
}

/* The first queued caller whose message fits, or NULL; others get -E2BIG. */
static struct thread *next_sender(struct endpoint *ep, uint32_t recv_max)
{
	struct list *node;

	while ((node = list_pop(&ep->senders))) {
		struct thread *s = thread_of(node);
		s->ipc.ep = NULL;
		if (s->ipc.msg.len <= recv_max) {
			return s;
		}
		finish(s, -E2BIG);
	}
	return NULL;
}

int ipc_call(struct endpoint *ep, uint64_t badge, uint32_t recv_max, uint64_t deadline_ns,
	     bool fast)
{
	struct thread *me = thread_current();
	struct thread *server = NULL;
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	if (!ep->receivers) {
		spin_unlock_irqrestore(&ipc_lock, flags);
		return -EPIPE;
	}
	me->ipc.msg.badge = badge;
	me->ipc.recv_max = recv_max;
	TTRACE(ipc_call, ep->id, IPC_INFO_LABEL(me->ipc.msg.info), 0);
	if (!list_empty(&ep->waiting)) {
		server = thread_of(ep->waiting.next);
		if (me->ipc.msg.len > server->ipc.recv_max) {
			spin_unlock_irqrestore(&ipc_lock, flags);
			return -E2BIG;
		}
		list_remove(&server->ipc.node);
		server->ipc.ep = NULL;
		take_call(ep, server, me);
		server->ipc.result = 0;
		server->ipc.phase = IPC_DONE;
	} else {
		list_add_tail(&ep->senders, &me->ipc.node);
		me->ipc.ep = ep;
		me->ipc.phase = IPC_SENDING;
	}
	block_current(me, deadline_ns);
	return wait_done(me, ep, server, fast, deadline_ns, flags);
}

/* Receives with ipc_lock held; blocks (returning through wait_done) if nobody calls. */
static int receive_locked(struct thread *me, struct endpoint *ep, uint32_t recv_max,
			  uint64_t deadline_ns, struct thread *partner, bool fast, uint64_t flags)
{
	drop_reply(me);
	struct thread *caller = next_sender(ep, recv_max);
	if (caller) {
		take_call(ep, me, caller);
		if (partner) {
			sched_wake(partner, WAKE_EVENT);
		}
		spin_unlock_irqrestore(&ipc_lock, flags);
		return 0;
	}
	if (!ep->callers) {
		if (partner) {
			sched_wake(partner, WAKE_EVENT);
		}
		spin_unlock_irqrestore(&ipc_lock, flags);
		return -EPIPE;
	}
	me->ipc.recv_max = recv_max;
	list_add_tail(&ep->waiting, &me->ipc.node);
	me->ipc.ep = ep;
	me->ipc.phase = IPC_RECEIVING;
	block_current(me, deadline_ns);
	return wait_done(me, ep, partner, fast, deadline_ns, flags);
}

int ipc_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	return receive_locked(thread_current(), ep, recv_max, deadline_ns, NULL, false, flags);
}

/* Delivers our message to the caller we owe; returns it (to wake) or NULL. */
static struct thread *reply_locked(struct thread *me, int *result)
{
	struct thread *caller = me->ipc.reply_to;

	*result = 0;
	if (!caller) {
		return NULL; /* gone (died, timed out): the reply is dropped */
	}
	me->ipc.reply_to = NULL;
	caller->ipc.replier = NULL;
	if (me->ipc.msg.len > caller->ipc.recv_max) {
		*result = -E2BIG;
		finish(caller, -E2BIG);
		return NULL;
	}
	me->ipc.msg.badge = 0; /* badges name callers; a reply carries none */
	TTRACE(ipc_reply, 0, IPC_INFO_LABEL(me->ipc.msg.info), caller->tid);
	transfer(caller, me);
	caller->ipc.result = 0;
	caller->ipc.phase = IPC_DONE;
	return caller;
}

/*
 * A capability staged with a reply nobody took is dropped here, outside
 * ipc_lock, before anything else can be received over it.
 */
static void drop_unsent_cap(struct thread *me, struct cap *unsent)
{
	*unsent = (struct cap){0};
	if (me->ipc.msg.has_cap) {
		*unsent = me->ipc.msg.cap;
		me->ipc.msg.has_cap = false;
	}
}

int ipc_reply(void)
{
	struct thread *me = thread_current();
	struct cap unsent;
	int result;
	uint64_t flags = spin_lock_irqsave(&ipc_lock);
	struct thread *caller = reply_locked(me, &result);

	if (caller) {
		sched_wake(caller, WAKE_EVENT);
	}
	drop_unsent_cap(me, &unsent);
	spin_unlock_irqrestore(&ipc_lock, flags);
	if (unsent.kind != CAP_KIND_NONE) {
		cap_put(&unsent);
	}
	return result;
}

int ipc_reply_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns, bool fast)
{
	struct thread *me = thread_current();
	struct cap unsent;
	int result;
	uint64_t flags = spin_lock_irqsave(&ipc_lock);
	struct thread *caller = reply_locked(me, &result);

	drop_unsent_cap(me, &unsent);
	if (unsent.kind != CAP_KIND_NONE) {
		/* Wake the caller now: it may go away while the lock is dropped. */
		if (caller) {
			sched_wake(caller, WAKE_EVENT);
			caller = NULL;
		}
		spin_unlock(&ipc_lock);
		cap_put(&unsent);
		spin_lock(&ipc_lock);
	}
	/* A reply that failed is the caller's problem; we go on receiving. */
	return receive_locked(me, ep, recv_max, deadline_ns, caller, fast, flags);
}

void ipc_thread_exit(struct thread *t)
{
	struct cap dropped = {0};
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	drop_reply(t);
	if (t->ipc.replier) {
		t->ipc.replier->ipc.reply_to = NULL;
		t->ipc.replier = NULL;
	}
	if (t->ipc.phase == IPC_SENDING || t->ipc.phase == IPC_RECEIVING) {
		list_remove(&t->ipc.node);
		t->ipc.ep = NULL;
	}
	t->ipc.phase = IPC_IDLE;
	if (t->ipc.msg.has_cap) {
		dropped = t->ipc.msg.cap;
		t->ipc.msg.has_cap = false;
	}
	spin_unlock_irqrestore(&ipc_lock, flags);
	if (dropped.kind != CAP_KIND_NONE) {
		cap_put(&dropped);
	}
}

int endpoint_create(struct endpoint **out)
{
	struct endpoint *ep = kzalloc(sizeof(*ep));

	if (!ep) {
		return -ENOMEM;
	}
	list_init(&ep->senders);
	list_init(&ep->waiting);
	ep->id = __atomic_fetch_add(&next_endpoint_id, 1, __ATOMIC_RELAXED);
	*out = ep;
	return 0;
}

void endpoint_get(struct endpoint *ep, uint32_t rights)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	__atomic_fetch_add(&ep->refs, 1, __ATOMIC_RELAXED);
	ep->callers += rights & CAP_RIGHT_WRITE ? 1 : 0;
	ep->receivers += rights & CAP_RIGHT_READ ? 1 : 0;
	spin_unlock_irqrestore(&ipc_lock, flags);
}

void endpoint_put(struct endpoint *ep, uint32_t rights)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	if (rights & CAP_RIGHT_WRITE && !--ep->callers) {
		fail_queue(&ep->waiting, -EPIPE); /* nobody can call any more */
	}
	if (rights & CAP_RIGHT_READ && !--ep->receivers) {
		fail_queue(&ep->senders, -EPIPE); /* nobody can receive any more */
	}
	spin_unlock_irqrestore(&ipc_lock, flags);
	/* acq_rel: the last put sees every use through other references */
	if (!__atomic_sub_fetch(&ep->refs, 1, __ATOMIC_ACQ_REL)) {
		kfree(ep);
	}
}
