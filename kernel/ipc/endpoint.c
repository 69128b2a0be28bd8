/*
 * endpoint: endpoint objects and the references capabilities hold to them
 * (see endpoint.h and ipc.h), and ipc_lock itself.
 *
 * An endpoint counts its references (refs) and, under ipc_lock, those
 * with the write right (callers) and with the read right (receivers):
 * when the last of one side goes, the other side's queue fails with
 * -EPIPE. The last reference frees it.
 */
#include "ipc/endpoint.h"

struct spinlock ipc_lock = SPINLOCK_INIT;
static uint32_t next_endpoint_id = 1; /* [a] */

int endpoint_create(struct mem_account *a, struct endpoint **out)
{
	struct endpoint *ep = kzalloc_for(a, sizeof(*ep));

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

	count_ref(ep, rights);
	spin_unlock_irqrestore(&ipc_lock, flags);
}

void endpoint_put(struct endpoint *ep, uint32_t rights)
{
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	uncount_rights(ep, rights);
	spin_unlock_irqrestore(&ipc_lock, flags);
	unref(ep);
}
