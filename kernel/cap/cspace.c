/*
 * cspace: slots under one spinlock. References to the named objects are
 * taken and dropped through cap_get/cap_put, which know each kind.
 */
#include "cap/cspace.h"

#include "abi/errno.h"
#include "ipc/ipc.h"
#include "lib/string.h"
#include "mm/memobj.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "trace/uevent_table.h"

void cap_get(const struct cap *c)
{
	switch (c->kind) {
	case CAP_KIND_FRAME:
		memobj_get(c->obj);
		break;
	case CAP_KIND_PROCESS:
		process_get(c->obj);
		break;
	case CAP_KIND_ENDPOINT:
		endpoint_get(c->obj, c->rights);
		break;
	case CAP_KIND_UEVENT:
		uevent_get(c->obj);
		break;
	default:
		break;
	}
}

void cap_put(struct cap *c)
{
	switch (c->kind) {
	case CAP_KIND_FRAME:
		memobj_put(c->obj);
		break;
	case CAP_KIND_PROCESS:
		process_put(c->obj);
		break;
	case CAP_KIND_ENDPOINT:
		endpoint_put(c->obj, c->rights);
		break;
	case CAP_KIND_UEVENT:
		uevent_put(c->obj);
		break;
	default:
		break;
	}
	*c = (struct cap){0};
}

void cap_restrict(struct cap *c, uint32_t rights)
{
	struct cap narrowed = *c;

	narrowed.rights &= rights;
	cap_get(&narrowed);
	cap_put(c);
	*c = narrowed;
}

void cspace_init(struct cspace *cs)
{
	memset(cs, 0, sizeof(*cs));
}

void cspace_destroy(struct cspace *cs)
{
	for (uint32_t i = 0; i < CAP_SLOTS; i++) {
		cspace_delete(cs, i);
		sched_preempt_point(); /* each may have been the last hold on 16 MiB of frames */
	}
}

int cspace_get(struct cspace *cs, uint32_t slot, uint32_t kind, uint32_t rights, struct cap *out)
{
	uint64_t flags = spin_lock_irqsave(&cs->lock);
	int err = cspace_peek(cs, slot, kind, rights, out);

	if (!err) {
		cap_get(out);
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	return err;
}

int cspace_check(struct cspace *cs, uint32_t slot, uint32_t kind, uint32_t rights)
{
	struct cap c;
	uint64_t flags = spin_lock_irqsave(&cs->lock);
	int err = cspace_peek(cs, slot, kind, rights, &c);

	spin_unlock_irqrestore(&cs->lock, flags);
	return err;
}

int cspace_insert(struct cspace *cs, const struct cap *c, uint32_t slot)
{
	int result = -ENOSPC;

	if (slot != CAP_SLOT_ANY && slot >= CAP_SLOTS) {
		return -EBADF;
	}
	uint64_t flags = spin_lock_irqsave(&cs->lock);
	if (slot != CAP_SLOT_ANY) {
		result = cs->slots[slot].kind == CAP_KIND_NONE ? (int)slot : -EEXIST;
	} else {
		for (uint32_t i = CAP_SLOT_FIRST_FREE; i < CAP_SLOTS && result < 0; i++) {
			if (cs->slots[i].kind == CAP_KIND_NONE) {
				result = (int)i;
			}
		}
	}
	if (result >= 0) {
		cs->slots[result] = *c;
		cap_get(c);
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	return result;
}

int cspace_delete(struct cspace *cs, uint32_t slot)
{
	if (slot >= CAP_SLOTS) {
		return -EBADF;
	}
	uint64_t flags = spin_lock_irqsave(&cs->lock);
	struct cap old = cs->slots[slot];
	cs->slots[slot] = (struct cap){0};
	spin_unlock_irqrestore(&cs->lock, flags);
	if (old.kind == CAP_KIND_NONE) {
		return -EBADF;
	}
	/* Dropped outside the lock: the last reference may tear down an object. */
	cap_put(&old);
	return 0;
}
