/*
 * ipc: the operations (call, recv, reply, reply_recv) on the generic path
 * and on the fast path, and the message registers they move (see ipc.h
 * and abi/ipc.h). The endpoint object and ipc_lock are endpoint.c's, a
 * signal's delivery signal.c's, a thread's IPC state at its start and
 * exit thread.c's.
 *
 * The two paths and the registers' moves stay one unit: split, the
 * compiler no longer sees the moves' bodies where the paths call them
 * (it inlines some, and knows which registers the others leave alone),
 * and a round trip under -icount took 5 instructions more on the fast
 * path and 19 more on the slow one (make bench's instruction boot).
 *
 * Blocking: a thread marks itself BLOCKED and queues or links itself under
 * ipc_lock; its partner finishes the operation under the same lock (phase
 * IPC_DONE, result) and wakes it — or, on the fast path, switches to it
 * directly, and if it blocked on the fast path too, ends its operation for
 * it (phase IPC_IDLE). A thread woken otherwise (timeout, kill) cancels what is left
 * of its operation under the lock, so no wake-up is ever lost and no link
 * is left dangling. Capability references are never dropped under
 * ipc_lock: dropping an endpoint capability takes the lock itself.
 *
 * The fast path (ipc_fast_call, ipc_fast_reply_recv) is the generic
 * operation cut down to the one case that matters for speed: a message in
 * registers, a partner already blocked waiting for it that may run here,
 * nothing else queued, no timeout. It checks all of that first, with no
 * side effect, and otherwise leaves the operation to the generic path.
 * When it applies it does in one pass under ipc_lock what the generic path
 * does in several: it finds the capability, counts the reference the
 * operation holds while it waits (as the generic caller's cspace_get()
 * does), completes the partner's operation, queues or links the caller,
 * and then switches to the partner without the run queues. The caller
 * blocks with nothing on its kernel stack but its trap frame: a partner on
 * the fast path ends its operation for it and sends it straight back to
 * user mode, so a round trip between two such threads never returns
 * through the C code that blocked either of them.
 */
#include "ipc/ipc.h"

#include <stddef.h>

#include "abi/errno.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "init/options.h"
#include "ipc/endpoint.h"
#include "ipc/handover.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "sched/switch.h"
#include "sched/thread.h"
#include "trace/func.h"
#include "trace/ktrace.h"

/* Where message words 0..7 travel: their registers' slots in the trap frame. */
static const uint8_t word_offsets[IPC_WORDS] = {
    offsetof(struct trap_frame, r10), offsetof(struct trap_frame, r8),
    offsetof(struct trap_frame, r9),  offsetof(struct trap_frame, r12),
    offsetof(struct trap_frame, r13), offsetof(struct trap_frame, r14),
    offsetof(struct trap_frame, r15), offsetof(struct trap_frame, rbx)};

/* Whether info, a message's first register, is one a message may have. */
static inline bool info_ok(uint64_t info)
{
	return !(info & IPC_INFO_RESERVED) && IPC_INFO_WORDS(info) <= IPC_WORDS;
}

/* Word i of the message registers in f. */
static inline uint64_t *word_reg(struct trap_frame *f, unsigned i)
{
	return (uint64_t *)((uint8_t *)f + word_offsets[i]);
}

/* Unrolled, the loops below fold the offsets into plain moves: every message comes this way. */
bool ipc_load_regs(struct ipc_msg *m, const struct trap_frame *f)
{
	if (!info_ok(f->rsi)) {
		return false;
	}
	m->info = f->rsi;
	m->len = 0;
#pragma GCC unroll 8
	for (unsigned i = 0; i < IPC_WORDS; i++) {
		m->words[i] = i < IPC_INFO_WORDS(m->info)
				  ? *(const uint64_t *)((const uint8_t *)f + word_offsets[i])
				  : 0;
	}
	return true;
}

void ipc_store_regs(struct trap_frame *f, const struct ipc_msg *m)
{
	f->rsi = m->info;
	f->rdi = m->badge;
#pragma GCC unroll 8
	for (unsigned i = 0; i < IPC_WORDS; i++) {
		*word_reg(f, i) = m->words[i];
	}
}

/*
 * ipc_load_regs() from src, a checked info, then ipc_store_regs() to dst
 * with badge, without the copy in between: the words the info counts
 * move, the others are zeroed, as the two would leave them. The jump into
 * each switch picks the first word to move, then the first to zero.
 */
static void move_regs(struct trap_frame *dst, struct trap_frame *src, uint64_t badge)
{
	uint32_t n = IPC_INFO_WORDS(src->rsi);

	_Static_assert(IPC_WORDS == 8, "the cases below");
	dst->rsi = src->rsi;
	dst->rdi = badge;
	switch (n) {
	case 8:
		*word_reg(dst, 7) = *word_reg(src, 7);
		/* fallthrough */
	case 7:
		*word_reg(dst, 6) = *word_reg(src, 6);
		/* fallthrough */
	case 6:
		*word_reg(dst, 5) = *word_reg(src, 5);
		/* fallthrough */
	case 5:
		*word_reg(dst, 4) = *word_reg(src, 4);
		/* fallthrough */
	case 4:
		*word_reg(dst, 3) = *word_reg(src, 3);
		/* fallthrough */
	case 3:
		*word_reg(dst, 2) = *word_reg(src, 2);
		/* fallthrough */
	case 2:
		*word_reg(dst, 1) = *word_reg(src, 1);
		/* fallthrough */
	case 1:
		*word_reg(dst, 0) = *word_reg(src, 0);
		/* fallthrough */
	default:
		break;
	}
	switch (n) {
	case 0:
		*word_reg(dst, 0) = 0;
		/* fallthrough */
	case 1:
		*word_reg(dst, 1) = 0;
		/* fallthrough */
	case 2:
		*word_reg(dst, 2) = 0;
		/* fallthrough */
	case 3:
		*word_reg(dst, 3) = 0;
		/* fallthrough */
	case 4:
		*word_reg(dst, 4) = 0;
		/* fallthrough */
	case 5:
		*word_reg(dst, 5) = 0;
		/* fallthrough */
	case 6:
		*word_reg(dst, 6) = 0;
		/* fallthrough */
	case 7:
		*word_reg(dst, 7) = 0;
		/* fallthrough */
	default:
		break;
	}
}

/*
 * Copies src's message into dst's, or straight into its registers if it
 * waits on the fast path, which would only copy it there (and which has
 * no room for a buffer: len is 0); moves the capability. A sender on the
 * fast path passes its registers in regs (its ipc.msg holds only info
 * and badge then, and no buffer or capability), others NULL. ipc_lock held.
 */
static inline void transfer(struct thread *dst, struct thread *src, struct trap_frame *regs)
{
	struct ipc_msg *d = &dst->ipc.msg;
	struct ipc_msg *s = &src->ipc.msg;

	if (regs && dst->ipc.in_regs) {
		move_regs(dst->frame, regs, s->badge);
	} else if (dst->ipc.in_regs) {
		ipc_store_regs(dst->frame, s);
	} else {
		if (regs) {
			ipc_load_regs(s, regs); /* its info was checked; the badge stays */
		}
		d->info = s->info;
		/* Unrolled word moves: memcpy() goes byte by byte, and this is every message. */
#pragma GCC unroll 8
		for (unsigned i = 0; i < IPC_WORDS; i++) {
			d->words[i] = s->words[i];
		}
		d->badge = s->badge;
		d->sender_pid = src->proc->pid;
		d->len = s->len;
		if (s->len) {
			memcpy(d->buf, s->buf, s->len); /* recv_max >= len made dst allocate it */
		}
	}
	if (regs) {
		d->has_cap = false; /* a sender on the fast path has none to move */
	} else {
		d->has_cap = s->has_cap;
		d->cap = s->cap;
		s->has_cap = false;
	}
}

static inline void block_current(struct thread *t, uint64_t deadline_ns)
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

/* The result of t's operation once t runs again, and t idle. ipc_lock held. */
static inline int collect(struct thread *t)
{
	int result = t->ipc.phase == IPC_DONE ? t->ipc.result : cancel(t);

	t->ipc.phase = IPC_IDLE;
	return result;
}

/* inject=wakeclaim: how long a server waits to be claimed, and then for its claimer. */
#define WAKECLAIM_WAIT_NS   1000000000ull
#define WAKECLAIM_SETTLE_US 1000

/*
 * Whether t, about to wake partner, is a server that replied and queued
 * itself for its next call in one reply_recv, which inject=wakeclaim
 * holds up. Only a caller pinned to another CPU: then the wake-up
 * certainly takes another CPU's run queue lock, which is what a fast call
 * landing inside it can collide with, and every other reply in the system
 * keeps its speed. ipc_lock held, so t's phase is stable.
 */
static inline bool wakeclaim_injected(const struct thread *t, const struct thread *partner)
{
	return kopts.inject == INJECT_WAKECLAIM && partner && t->ipc.phase == IPC_RECEIVING &&
	       partner->pin_cpu >= 0 && (uint32_t)partner->pin_cpu != this_cpu()->id;
}

/*
 * inject=wakeclaim: t, blocked and claimable since ipc_lock was dropped,
 * waits until a call claims it (a fast call takes it off this CPU) or a
 * second has passed. The claimer holds ipc_lock from before its claim
 * until it goes to switch to t, so taking the lock once more waits for
 * that; a millisecond more lets it get to waiting for t to leave this CPU
 * before t's wake-up of its caller takes the caller's CPU's run queue
 * lock. A fast path that waited holding that lock locks both CPUs up
 * (ipctest wakerace); without the option the window is a few hundred
 * instructions wide.
 */
static void wakeclaim_wait(const struct thread *t)
{
	uint64_t end = timer_now_ns() + WAKECLAIM_WAIT_NS;

	/* acquire: pairs with the claimer's compare-and-swap in sched_claim() */
	while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == THREAD_BLOCKED &&
	       timer_now_ns() < end) {
		cpu_relax();
	}
	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_BLOCKED) {
		spin_lock(&ipc_lock);
		spin_unlock(&ipc_lock);
		timer_delay_us(WAKECLAIM_SETTLE_US);
	}
}

/*
 * Gives up the CPU through the scheduler until the operation is done,
 * waking partner, if any, to run. Called with ipc_lock held (taken with
 * spin_lock_irqsave into flags); returns the result with the lock dropped
 * and interrupts as they were.
 */
static int wait_done(struct thread *t, const struct endpoint *ep, struct thread *partner,
		     uint64_t deadline_ns, uint64_t flags)
{
	bool injected = wakeclaim_injected(t, partner);
	/*
	 * What ipc_slowpath says, read while ipc_lock keeps t's message ours:
	 * once the lock is dropped a caller may deliver its own into it.
	 */
	uint32_t label = IPC_INFO_LABEL(t->ipc.msg.info);

	spin_unlock(&ipc_lock); /* interrupts stay off until we are switched out */
	sched_block_check_kill(t);
	if (injected) {
		wakeclaim_wait(t);
	}
	if (partner) {
		TTRACE(ipc_slowpath, ep->id, label, partner->tid);
		sched_wake(partner, WAKE_EVENT);
	}
	schedule();
	if (deadline_ns) {
		sched_timer_remove(t);
	}
	spin_lock(&ipc_lock);
	int result = collect(t);
	spin_unlock_irqrestore(&ipc_lock, flags);
	return result;
}

/*
 * Links caller to server: server now owes caller a reply. regs: as
 * transfer() has it. ipc_lock held. A call on the fast path records no
 * ipc_recv: its ipc_call and ipc_fastpath, in the caller's context, name
 * the endpoint, label and server already (abi/trace_kinds.def).
 */
static inline void take_call(struct endpoint *ep, struct thread *server, struct thread *caller,
			     struct trap_frame *regs)
{
	if (!regs) {
		TTRACE(ipc_recv, ep->id, IPC_INFO_LABEL(caller->ipc.msg.info), caller->tid);
	}
	transfer(server, caller, regs);
	server->ipc.reply_to = caller;
	caller->ipc.replier = server;
	caller->ipc.phase = IPC_AWAIT_REPLY;
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

/* Hands caller's message to server, which was waiting for one. regs: as transfer(). ipc_lock held.
 */
static inline void deliver_call(struct endpoint *ep, struct thread *server, struct thread *caller,
				struct trap_frame *regs)
{
	list_remove(&server->ipc.node);
	server->ipc.ep = NULL;
	take_call(ep, server, caller, regs);
	server->ipc.result = 0;
	server->ipc.phase = IPC_DONE;
}

int ipc_call(struct endpoint *ep, uint64_t badge, uint32_t recv_max, uint64_t deadline_ns)
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
		deliver_call(ep, server, me, NULL);
	} else {
		list_add_tail(&ep->senders, &me->ipc.node);
		me->ipc.ep = ep;
		me->ipc.phase = IPC_SENDING;
	}
	block_current(me, deadline_ns);
	return wait_done(me, ep, server, deadline_ns, flags);
}

/* Queues me on ep to receive a message. ipc_lock held. */
static inline void wait_for_call(struct endpoint *ep, struct thread *me, uint32_t recv_max)
{
	me->ipc.recv_max = recv_max;
	list_add_tail(&ep->waiting, &me->ipc.node);
	me->ipc.ep = ep;
	me->ipc.phase = IPC_RECEIVING;
}

/* Receives with ipc_lock held; blocks (returning through wait_done) if nobody calls. */
static int receive_locked(struct thread *me, struct endpoint *ep, uint32_t recv_max,
			  uint64_t deadline_ns, struct thread *partner, uint64_t flags)
{
	drop_reply(me);
	if (ep->signal) {
		put_signal(me, ep->signal);
		ep->signal = 0;
		if (partner) {
			sched_wake(partner, WAKE_EVENT);
		}
		spin_unlock_irqrestore(&ipc_lock, flags);
		return 0;
	}
	struct thread *caller = next_sender(ep, recv_max);
	if (caller) {
		take_call(ep, me, caller, NULL);
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
	wait_for_call(ep, me, recv_max);
	block_current(me, deadline_ns);
	return wait_done(me, ep, partner, deadline_ns, flags);
}

int ipc_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	return receive_locked(thread_current(), ep, recv_max, deadline_ns, NULL, flags);
}

/* Hands our reply to caller, which has room for it. regs: as transfer(). ipc_lock held. */
static inline void deliver_reply(struct thread *me, struct thread *caller, struct trap_frame *regs)
{
	me->ipc.reply_to = NULL;
	caller->ipc.replier = NULL;
	me->ipc.msg.badge = 0; /* badges name callers; a reply carries none */
	TTRACE(ipc_reply, 0, IPC_INFO_LABEL(me->ipc.msg.info), caller->tid);
	transfer(caller, me, regs);
	caller->ipc.result = 0;
	caller->ipc.phase = IPC_DONE;
}

/* Delivers our message to the caller we owe; returns it (to wake) or NULL. */
static struct thread *reply_locked(struct thread *me, int *result)
{
	struct thread *caller = me->ipc.reply_to;

	*result = 0;
	if (!caller) {
		return NULL; /* gone (died, timed out): the reply is dropped */
	}
	if (me->ipc.msg.len > caller->ipc.recv_max) {
		me->ipc.reply_to = NULL;
		caller->ipc.replier = NULL;
		*result = -E2BIG;
		finish(caller, -E2BIG);
		return NULL;
	}
	deliver_reply(me, caller, NULL);
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

int ipc_reply_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns)
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
	return receive_locked(me, ep, recv_max, deadline_ns, caller, flags);
}

/*
 * The fast path's first step: the endpoint in slot of cs, if it is one with
 * rights, returned with ipc_lock held and its capability in *c. The slot's
 * reference keeps the endpoint alive until we hold ipc_lock, which
 * endpoint_put() needs before it can let go of it. Interrupts off.
 */
static inline struct endpoint *lock_endpoint(struct cspace *cs, uint32_t slot, uint32_t rights,
					     struct cap *c)
{
	spin_lock(&cs->lock);
	int err = cspace_peek(cs, slot, CAP_KIND_ENDPOINT, rights, c);
	if (!err) {
		spin_lock(&ipc_lock);
	}
	spin_unlock(&cs->lock);
	return err ? NULL : c->obj;
}

/*
 * Takes off t's counts the endpoint reference its operation on the fast
 * path held; returns the endpoint, for unref() once ipc_lock is dropped.
 * ipc_lock held.
 */
static inline struct endpoint *take_held(struct thread *t)
{
	struct endpoint *ep = t->ipc.held;

	t->ipc.held = NULL;
	uncount_rights(ep, t->ipc.held_rights);
	return ep;
}

/*
 * The fast path's last step: me, its operation handed over or queued,
 * blocks holding the reference c that the operation counted, to resume
 * in user mode (thread_resume_rsp(): where the syscall entry prepared its
 * stack), and partner, claimed with sched_claim(), gets the CPU. Called
 * with ipc_lock held, returns with it dropped. A partner that waits on
 * the fast path too has nothing on its kernel stack to go back to: its
 * operation ends here (its result is 0) and the CPU is made partner's with
 * switch_prepare(), and it is returned for the caller to leave me's stack
 * for partner's trap frame. Any other partner is resumed where it blocked,
 * by sched_handoff(), which does not return. Inline in both callers.
 *
 * Once ipc_lock is dropped, me is anyone's to claim, and this CPU touches
 * neither me's trap frame nor its resume area again: only its own stack
 * below them and partner's. That is why a claimer may write a claimed
 * thread's frame before its on_cpu clears.
 */
static inline __attribute__((always_inline)) struct thread *
handoff(struct thread *me, struct endpoint *ep, const struct cap *c, struct thread *partner)
{
	bool direct = partner->ipc.in_regs;
	struct endpoint *released = NULL;
	/* What ipc_fastpath says, read while ipc_lock keeps ep and me's message ours. */
	uint32_t ep_id = ep->id;
	uint32_t label = IPC_INFO_LABEL(me->ipc.msg.info);

	me->ipc.in_regs = true;
	me->ipc.held = ep;
	me->ipc.held_rights = c->rights;
	me->kernel_rsp = thread_resume_rsp(me);
	block_current(me, 0);
	if (direct) {
		partner->ipc.phase = IPC_IDLE;
		partner->ipc.in_regs = false;
		released = take_held(partner);
	}
	spin_unlock(&ipc_lock);
	sched_block_check_kill(me);
	TTRACE(ipc_fastpath, ep_id, label, partner->tid);
	if (!direct) {
		sched_handoff(partner);
	}
	unref(released);
	switch_prepare(this_cpu(), me, partner, partner->proc == me->proc);
	return partner;
}

/*
 * The fast path's two entries have no entry NOP of their own: their one
 * caller, sys_ipc() (syscall/table.c), is the IPC's traceable entry, so a
 * fast round trip pays one NOP a call, as when these two had them.
 */
notrace struct thread *ipc_fast_call(struct cspace *cs, uint32_t slot, struct trap_frame *f)
{
	struct thread *me = thread_current();
	struct cap c;
	struct endpoint *ep;

	if (!info_ok(f->rsi) || !(ep = lock_endpoint(cs, slot, CAP_RIGHT_WRITE, &c))) {
		return NULL;
	}
	struct thread *server =
	    ep->receivers && !list_empty(&ep->waiting) ? thread_of(ep->waiting.next) : NULL;
	if (!server || !sched_claim(server)) {
		spin_unlock(&ipc_lock);
		return NULL;
	}
	count_ref(ep, c.rights);
	me->ipc.msg.info = f->rsi;
	me->ipc.msg.badge = c.badge;
	me->ipc.recv_max = 0;
	TTRACE(ipc_call, ep->id, IPC_INFO_LABEL(me->ipc.msg.info), 0);
	deliver_call(ep, server, me, f);
	return handoff(me, ep, &c, server);
}

notrace struct thread *ipc_fast_reply_recv(struct cspace *cs, uint32_t slot, struct trap_frame *f)
{
	struct thread *me = thread_current();
	struct cap c;
	struct endpoint *ep;

	if (!info_ok(f->rsi) || !(ep = lock_endpoint(cs, slot, CAP_RIGHT_READ, &c))) {
		return NULL;
	}
	struct thread *caller = me->ipc.reply_to;
	if (!caller || !list_empty(&ep->senders) || ep->signal || !ep->callers ||
	    !sched_claim(caller)) {
		spin_unlock(&ipc_lock);
		return NULL;
	}
	count_ref(ep, c.rights);
	me->ipc.msg.info = f->rsi;
	deliver_reply(me, caller, f);
	wait_for_call(ep, me, 0);
	return handoff(me, ep, &c, caller);
}

int ipc_fast_collect(struct thread *me)
{
	spin_lock(&ipc_lock);
	int result = collect(me);
	me->ipc.in_regs = false;
	struct endpoint *held = take_held(me);
	spin_unlock(&ipc_lock);
	unref(held);
	return result;
}
