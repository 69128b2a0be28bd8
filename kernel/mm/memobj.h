/*
 * memobj: a frame object, the memory behind a frame capability: a fixed
 * number of zeroed pages, allocated when the object is made. The object
 * holds one reference on each frame; every mapping of it holds another,
 * so the frames live until the last capability and mapping are gone.
 */
#ifndef SPOOR_MM_MEMOBJ_H
#define SPOOR_MM_MEMOBJ_H

#include <stdint.h>

#define MEMOBJ_MAX_PAGES 4096 /* 16 MiB */

struct memobj {
	uint32_t refs;	   /* [a] */
	uint32_t npages;   /* [I] */
	uint64_t frames[]; /* [I] physical addresses */
};

struct mem_account;

/*
 * A new object of npages zeroed pages, one reference, its record and
 * frames charged to acct (account.h) until they are freed. -EINVAL,
 * -ENOMEM (past acct's limit too). Zeroing 16 MiB takes a while: it has
 * preemption points (sched.h), so no spinlock held, interrupts on.
 */
int memobj_create(struct mem_account *acct, uint64_t npages, struct memobj **out);

/*
 * An object over npages existing frames from phys (each gets a reference,
 * so they outlive the object's mappings), one reference. 0 or -ENOMEM.
 */
int memobj_wrap(uint64_t phys, uint64_t npages, struct memobj **out);

struct free_batch;

void memobj_get(struct memobj *m);

/*
 * Drops a reference; the last one lets go of the frames and the record,
 * a batch of frames under one hold of the allocator's lock (pmm.h).
 */
void memobj_put(struct memobj *m);

/*
 * memobj_put() for a caller dropping many objects (a teardown): the last
 * reference's frames and record go into b, to be let go of with b's
 * others, so that thousands of one-page objects cost the allocator's and
 * the heap's locks once a batch, not once an object (free_batch.h).
 */
void memobj_put_into(struct memobj *m, struct free_batch *b);

#endif
