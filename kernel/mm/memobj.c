/*
 * memobj: frame objects (see memobj.h).
 */
#include "mm/memobj.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "lib/string.h"
#include "mm/free_batch.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "sched/sched.h"

/* An object of npages with one reference and its frames still to fill in. */
static struct memobj *memobj_alloc(struct mem_account *acct, uint64_t npages)
{
	struct memobj *m = kmalloc_charged(acct, sizeof(*m) + npages * sizeof(uint64_t));

	if (m) {
		m->refs = 1;
		m->npages = (uint32_t)npages;
	}
	return m;
}

int memobj_create(struct mem_account *acct, uint64_t npages, struct memobj **out)
{
	if (!npages || npages > MEMOBJ_MAX_PAGES) {
		return -EINVAL;
	}
	struct memobj *m = memobj_alloc(acct, npages);
	if (!m) {
		return -ENOMEM;
	}
	if (pmm_alloc_pages(acct, npages, m->frames)) {
		kfree(m);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < npages; i++) {
		memset(phys_to_virt(m->frames[i]), 0, PAGE_SIZE);
		sched_preempt_point();
	}
	*out = m;
	return 0;
}

int memobj_wrap(uint64_t phys, uint64_t npages, struct memobj **out)
{
	struct memobj *m = memobj_alloc(NULL, npages);

	if (!m) {
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < npages; i++) {
		m->frames[i] = phys + i * PAGE_SIZE;
		pmm_frame_ref(m->frames[i]);
	}
	*out = m;
	return 0;
}

void memobj_get(struct memobj *m)
{
	__atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
}

/* Drops a reference to m: whether it was the last. */
static bool put_last(struct memobj *m)
{
	/* acq_rel: the last put sees every use of the object before it */
	return !__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL);
}

void memobj_put(struct memobj *m)
{
	if (put_last(m)) {
		pmm_frames_unref(m->frames, m->npages);
		kfree(m);
	}
}

void memobj_put_into(struct memobj *m, struct free_batch *b)
{
	if (!put_last(m)) {
		return;
	}
	for (uint32_t i = 0; i < m->npages; i++) {
		free_batch_unref(b, m->frames[i]);
	}
	free_batch_kfree(b, m); /* the frames' addresses are in b now: m is not read again */
}
