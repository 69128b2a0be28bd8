/*
 * cspace: a process's capability table. A slot holds a kind, rights and a
 * counted reference to the object the capability names. Operations check
 * the slot first (range, kind, rights: -EBADF, -ECAPKIND, -EACCES as
 * abi/cap.h documents) and change nothing on error.
 */
#ifndef SPOOR_CAP_CSPACE_H
#define SPOOR_CAP_CSPACE_H

#include <stdint.h>

#include "abi/cap.h"
#include "abi/errno.h"
#include "lib/spinlock.h"

struct cap {
	uint32_t kind;	 /* CAP_KIND_* */
	uint32_t rights; /* CAP_RIGHT_* */
	void *obj;	 /* counted reference; NULL for the console */
	uint64_t badge;	 /* endpoints: what the receiver learns of the caller; 0 unbadged */
};

struct cspace {
	struct spinlock lock;
	struct cap slots[CAP_SLOTS]; /* [lock] */
};

/* Any free slot at or above CAP_SLOT_FIRST_FREE. */
#define CAP_SLOT_ANY UINT32_MAX

void cspace_init(struct cspace *cs);

/* Deletes every capability; a preemption point after each (sched.h). */
void cspace_destroy(struct cspace *cs);

/*
 * Copies slot into *out with a new reference, if it is of the kind (or
 * any kind for CAP_KIND_NONE) and has every right in rights. The caller
 * drops the reference with cap_put().
 */
int cspace_get(struct cspace *cs, uint32_t slot, uint32_t kind, uint32_t rights, struct cap *out);

/*
 * The checks of cspace_get() with cs->lock held, taking no reference: *out
 * names its object only while the lock is held, unless the caller counts
 * a reference of its own meanwhile (IPC's fast path does, under its lock).
 * Inline: the fast path comes through here on every message.
 */
static inline int cspace_peek(const struct cspace *cs, uint32_t slot, uint32_t kind,
			      uint32_t rights, struct cap *out)
{
	if (slot >= CAP_SLOTS) {
		return -EBADF;
	}
	const struct cap *c = &cs->slots[slot];
	if (c->kind == CAP_KIND_NONE) {
		return -EBADF;
	}
	if (kind != CAP_KIND_NONE && c->kind != kind) {
		return -ECAPKIND;
	}
	if ((c->rights & rights) != rights) {
		return -EACCES;
	}
	*out = *c;
	return 0;
}

/*
 * Whether slot holds a capability of the kind with every right in rights,
 * as cspace_get() checks it, for a caller that needs only the permission
 * and no reference (holding a trace control, say). Returns 0 or
 * cspace_get()'s error.
 */
int cspace_check(struct cspace *cs, uint32_t slot, uint32_t kind, uint32_t rights);

/*
 * Stores a copy of c (taking a new reference) in slot, or in the first
 * free slot for CAP_SLOT_ANY. Returns the slot, -EBADF for a bad slot,
 * -EEXIST if it is taken, -ENOSPC if the table is full.
 */
int cspace_insert(struct cspace *cs, const struct cap *c, uint32_t slot);

/* Empties slot. 0 or -EBADF. */
int cspace_delete(struct cspace *cs, uint32_t slot);

void cap_get(const struct cap *c);
void cap_put(struct cap *c);

/*
 * Keeps only rights in the counted reference c holds. Objects count
 * references per right (an endpoint knows whether anyone can still call
 * or receive), so this trades the reference rather than editing it.
 * No lock held.
 */
void cap_restrict(struct cap *c, uint32_t rights);

#endif
