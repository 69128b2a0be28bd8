/*
 * account: per-tree memory charges (see account.h). Lock-free: used only
 * ever moves by compare-and-swap against the limit, so concurrent charges
 * from every CPU of a tree can never together pass it.
 */
#include "mm/account.h"

#include "abi/errno.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

#define DEFAULT_LIMIT_SHARE 2 /* a tree may take 1/2 of the frames by default */

struct mem_account *account_create(uint64_t limit, uint32_t flags)
{
	/* Uncharged itself: it is part of its tree's fixed cost, like the process record. */
	struct mem_account *a = kzalloc(sizeof(*a));

	if (a) {
		a->limit = limit ? limit : account_default_limit();
		a->flags = flags;
		a->refs = 1;
	}
	return a;
}

void account_get(struct mem_account *a)
{
	__atomic_fetch_add(&a->refs, 1, __ATOMIC_RELAXED);
}

/* Drops n references to a, freeing it with the last. */
static void put_many(struct mem_account *a, uint64_t n)
{
	/* acq_rel: the last put sees every uncharge before it */
	if (!__atomic_sub_fetch(&a->refs, n, __ATOMIC_ACQ_REL)) {
		kfree(a);
	}
}

void account_put(struct mem_account *a)
{
	put_many(a, 1);
}

int account_charge(struct mem_account *a, uint64_t bytes)
{
	if (!a) {
		return 0;
	}
	uint64_t used = __atomic_load_n(&a->used, __ATOMIC_RELAXED);
	do {
		if (bytes > a->limit || used > a->limit - bytes) {
			return -ENOMEM;
		}
	} while (!__atomic_compare_exchange_n(&a->used, &used, used + bytes, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	account_get(a);
	return 0;
}

void account_uncharge(struct mem_account *a, uint64_t bytes)
{
	account_uncharge_many(a, bytes, 1);
}

void account_uncharge_many(struct mem_account *a, uint64_t bytes, uint64_t charges)
{
	if (a) {
		__atomic_fetch_sub(&a->used, bytes, __ATOMIC_RELAXED);
		put_many(a, charges);
	}
}

bool account_may_use_reserve(const struct mem_account *a)
{
	return !a || a->flags & ACCOUNT_RESERVE;
}

bool account_at_limit(const struct mem_account *a)
{
	/* Within a page of it: the charge that failed was at least that big. */
	return a && __atomic_load_n(&a->used, __ATOMIC_RELAXED) + PAGE_SIZE > a->limit;
}

uint64_t account_default_limit(void)
{
	return pmm_total_count() / DEFAULT_LIMIT_SHARE * PAGE_SIZE;
}
