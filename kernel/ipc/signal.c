/*
 * signal: ipc_signal() (see ipc.h). A signal (abi/ipc.h SIGNALS) is a
 * message with no sender: under ipc_lock it completes the oldest waiting
 * receive, as a caller would but owed no reply, or else stays in the
 * endpoint's signal bits, which every receive looks at before its queue
 * of callers (and the fast reply_recv, which would otherwise queue its
 * thread past them, leaves to the generic path). Deciding and queueing
 * under the one lock is what keeps a signal from falling between a
 * receiver's look and its sleep.
 */
#include "ipc/ipc.h"

#include "ipc/endpoint.h"
#include "ipc/handover.h"
#include "lib/spinlock.h"

void ipc_signal(struct endpoint *ep, uint64_t bits)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	if (list_empty(&ep->waiting)) {
		ep->signal |= bits;
	} else {
		struct thread *t = thread_of(ep->waiting.next);
		list_remove(&t->ipc.node);
		t->ipc.ep = NULL;
		put_signal(t, bits);
		finish(t, 0);
	}
	spin_unlock_irqrestore(&ipc_lock, flags);
}
