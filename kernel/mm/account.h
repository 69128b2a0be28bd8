/*
 * account: what a spawn tree's memory costs, and the limit on it.
 *
 * Every process tree (init, and each process init spawns with what it
 * spawns: abi/proc.h) has one account, shared by all its processes. Every
 * frame and kernel object taken for one of them is charged to it when it
 * is allocated and uncharged when it is freed, whoever frees it: the frame
 * allocator remembers each frame's account (pmm.h), a heap block its own
 * (heap.h). So frames shared copy-on-write, or through a frame capability
 * handed to another tree, stay charged to the tree that took them until
 * they go back to the allocator, and a tree's use returns to what it was
 * once its objects are gone.
 *
 * Charged: user pages (anonymous, copies on write), frame objects, page
 * tables, kernel stacks, IPC buffers, regions and frame object records.
 * Not charged: the kernel's own (trace rings, the zero page, program
 * templates, slab frames as such: their blocks are), and records a tree
 * can only have a bounded number of (processes and this account, at most
 * PROC_TREE_MAX; endpoints, at most CAP_SLOTS a process).
 *
 * Lifetime: one reference per process using it, and one per charge not
 * yet uncharged, so an account outlives every frame charged to it.
 *
 * ACCOUNT_RESERVE marks the trees that must never fault for memory (init
 * and the servers it keeps): they may take the last frames (pmm.h,
 * PMM_RESERVE_SHARE), which every other tree finds already gone, through
 * the kernel too: a slab frame for an ordinary tree's heap blocks, or an
 * uncharged record made for it, is refused rather than taken from the
 * reserve (pmm_alloc_frames_for, kzalloc_for).
 *
 * Out of memory (proc/oom.c): a user fault no frame can be had for kills
 * one tree, with one console line. An ordinary tree at its limit pays
 * itself; one under it has the largest ordinary tree killed, and the
 * fault retried, unless that is its own. Init has the largest tree but
 * its own killed, ordinary or kept (init restarts a kept one, backing
 * off), or waits when there is none; a kept server likewise, but it dies
 * itself when its tree is the largest. So init never dies for memory, and
 * a kept server eating everything kills no one but itself.
 */
#ifndef SPOOR_MM_ACCOUNT_H
#define SPOOR_MM_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#define ACCOUNT_RESERVE	 (1u << 0) /* may allocate from the frames kept back */
#define ACCOUNT_NO_LIMIT UINT64_MAX

struct mem_account {
	uint64_t used;	/* [a] bytes charged */
	uint64_t limit; /* [I] bytes: charges past it fail */
	uint64_t refs;	/* [a] processes using it + charges outstanding: one a block, never wraps */
	uint32_t flags; /* [I] ACCOUNT_* */
};

/*
 * A new account with limit bytes (0: the default, account_default_limit())
 * and flags, one reference. NULL when out of memory.
 */
struct mem_account *account_create(uint64_t limit, uint32_t flags);

void account_get(struct mem_account *a);
void account_put(struct mem_account *a);

/*
 * Charges bytes to a, taking one reference: 0, or -ENOMEM (nothing
 * charged) when that would take it past its limit. a NULL (the kernel's
 * own memory) always succeeds. Any context, never blocks.
 */
int account_charge(struct mem_account *a, uint64_t bytes);

/* Undoes one account_charge() of bytes; may free a. NULL is ignored. */
void account_uncharge(struct mem_account *a, uint64_t bytes);

/*
 * Undoes charges account_charge()s of bytes in all at once, as a batch of
 * frames freed together does: one update of a's counts, not one a charge.
 * May free a. NULL is ignored.
 */
void account_uncharge_many(struct mem_account *a, uint64_t bytes, uint64_t charges);

/* Whether a may take the frames kept back (ACCOUNT_RESERVE, or the kernel's NULL). */
bool account_may_use_reserve(const struct mem_account *a);

/* Whether a is at its limit: a fault that could not be served was its own doing. */
bool account_at_limit(const struct mem_account *a);

/* The limit of a tree spawned without one: half of the frames the allocator manages. */
uint64_t account_default_limit(void);

#endif
