/*
 * heap: kmalloc and kfree for kernel objects. Small blocks come from
 * power-of-two size classes carved out of frames; large ones are whole
 * runs of frames. Any CPU, any context, never blocks. Memory is reached
 * through the direct map, so it is usable as soon as pmm_init() has run.
 */
#ifndef SPOOR_MM_HEAP_H
#define SPOOR_MM_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Returns 16-byte aligned memory, or NULL when out of memory or size is 0. */
void *kmalloc(size_t size);

/* kmalloc, zero-filled. */
void *kzalloc(size_t size);

struct mem_account;

/*
 * kmalloc and kzalloc for an object a tree causes: its block (a small
 * block's size class, a large one's frames) is charged to a (account.h)
 * until kfree(); NULL past a's limit too.
 */
void *kmalloc_charged(struct mem_account *a, size_t size);
void *kzalloc_charged(struct mem_account *a, size_t size);

/*
 * kzalloc for a record the kernel makes on behalf of a's tree but does not
 * charge (account.h says which): NULL, rather than memory from the
 * reserve, when a may not use the reserve (pmm.h).
 */
void *kzalloc_for(struct mem_account *a, size_t size);

/* Frees a kmalloc() block; NULL is ignored, a corrupt or double free panics. */
void kfree(void *p);

#define KFREE_BATCH_MAX 64 /* blocks kfree_batch() takes at once */

/*
 * kfree() of blocks[0..n), n <= KFREE_BATCH_MAX, under one hold of the
 * heap's lock instead of n: a CPU that frees thousands of records (a
 * teardown) hands the lock over to the other CPUs n times less often, and
 * holds it for a bounded time.
 */
void kfree_batch(void *const *blocks, size_t n);

/* Times the heap's lock was taken since boot (sys_info), as pmm_lock_takings() counts. */
uint64_t heap_lock_takings(void);

#endif
