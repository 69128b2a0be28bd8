/*
 * heap: small blocks come from slabs, one frame each, carved into blocks of
 * one size class; a slab starts with its own header (struct slab), so the
 * slab of any block is its address rounded down to the frame. A class keeps
 * the slabs that have a free block on its list; a slab whose last block is
 * freed goes straight back to the frame allocator, so memory the kernel no
 * longer uses is free memory again (`mem` comes back to where it was once a
 * program's objects are gone). Each block starts with a 16-byte header naming
 * its class (or its frame count) and a magic that kfree() checks, which
 * catches double frees and frees of foreign pointers.
 *
 * The class sizes include the block header and leave room for the slab
 * header: 2 blocks of 2032 bytes, 4 of 1008, 8 of 496, ... fill a frame.
 */
#include "mm/heap.h"

#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "lib/panic.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/account.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

#define HEAP_MAGIC  0x5ee9a110u
#define HEAP_FREED  0xdeadb10cu
#define SLAB_MAGIC  0x51ab51abu
#define LARGE	    0xffffu
#define NUM_CLASSES (sizeof(class_size) / sizeof(class_size[0]))

struct block_header {
	uint32_t magic;
	uint16_t class; /* LARGE for frame runs */
	uint16_t reserved;
	union {
		uint64_t frames; /* LARGE: the run's length (its frames carry the charge) */
		struct mem_account *acct; /* small: charged class_size[class] bytes, or NULL */
	};
};

_Static_assert(sizeof(struct block_header) == 16, "keeps payloads 16-byte aligned");

struct free_block {
	struct block_header header;
	struct free_block *next;
};

/* At the start of every slab frame. */
struct slab {
	struct list node;	 /* [heap_lock] on its class's list while it has a free block */
	struct free_block *free; /* [heap_lock] its free blocks */
	uint16_t class;		 /* [I] */
	uint16_t used;		 /* [heap_lock] blocks handed out */
	uint32_t magic;		 /* [I] SLAB_MAGIC */
};

_Static_assert(sizeof(struct slab) == 32, "keeps blocks 16-byte aligned");

/* Block sizes, header included: multiples of 16, each filling a frame after its slab header. */
static const uint16_t class_size[] = {32, 64, 128, 240, 496, 1008, 2032};

static struct spinlock heap_lock = SPINLOCK_INIT;
static uint64_t lock_takings; /* [heap_lock] written, read racily by heap_lock_takings() */
static struct list partial[NUM_CLASSES] = {
    LIST_INIT(partial[0]), LIST_INIT(partial[1]), LIST_INIT(partial[2]), LIST_INIT(partial[3]),
    LIST_INIT(partial[4]), LIST_INIT(partial[5]), LIST_INIT(partial[6]),
}; /* [heap_lock] per class, the slabs with a free block */

_Static_assert(NUM_CLASSES == 7, "partial[]'s initializer names every class");

/* Takes heap_lock, counting it, as pmm.c counts its own. */
static uint64_t lock_heap(void)
{
	uint64_t flags = spin_lock_irqsave(&heap_lock);

	/* relaxed: the lock orders the writes; heap_lock_takings() only reports */
	__atomic_store_n(&lock_takings, lock_takings + 1, __ATOMIC_RELAXED);
	return flags;
}

uint64_t heap_lock_takings(void)
{
	return __atomic_load_n(&lock_takings, __ATOMIC_RELAXED);
}

static unsigned class_for(size_t total)
{
	unsigned c = 0;

	while (class_size[c] < total) {
		c++;
	}
	return c;
}

/*
 * A new slab of class c for a block made on behalf of a, every block free;
 * NULL when out of frames, or when only the reserve is left and a may not
 * use it: a tree's blocks are charged to it, but the frame is the
 * kernel's, and must not open the reserve to it (pmm.h). Any lock state.
 */
static struct slab *slab_create(unsigned c, const struct mem_account *a)
{
	uint64_t pa;

	if (pmm_alloc_frames_for(a, 1, &pa)) {
		return NULL;
	}
	struct slab *s = phys_to_virt(pa);
	*s = (struct slab){.class = (uint16_t)c, .magic = SLAB_MAGIC};
	list_init(&s->node);
	for (size_t off = sizeof(*s); off + class_size[c] <= PAGE_SIZE; off += class_size[c]) {
		struct free_block *b = (struct free_block *)((uint8_t *)s + off);
		b->header.magic = HEAP_FREED;
		b->next = s->free;
		s->free = b;
	}
	return s;
}

static void *alloc_large(struct mem_account *a, bool charged, size_t total)
{
	uint64_t frames = PAGE_ALIGN_UP(total) / PAGE_SIZE;
	uint64_t pa;

	if (charged ? pmm_alloc_charged(a, frames, &pa) : pmm_alloc_frames_for(a, frames, &pa)) {
		return NULL;
	}
	struct block_header *h = phys_to_virt(pa);
	*h = (struct block_header){.magic = HEAP_MAGIC, .class = LARGE, .frames = frames};
	return h + 1;
}

/*
 * A block made on behalf of a (NULL: the kernel's own), charged to a if
 * charged; its memory comes from the reserve only if a may use it.
 */
static void *alloc(struct mem_account *a, bool charged, size_t size)
{
	if (!size || size > SIZE_MAX - PAGE_SIZE) {
		return NULL;
	}
	size_t total = size + sizeof(struct block_header);
	if (total > class_size[NUM_CLASSES - 1]) {
		return alloc_large(a, charged, total);
	}
	unsigned c = class_for(total);
	struct mem_account *payer = charged ? a : NULL;
	if (account_charge(payer, class_size[c])) {
		return NULL;
	}
	uint64_t flags = lock_heap();
	if (list_empty(&partial[c])) {
		/* The frame allocator has its own lock, taken after this one, never around it. */
		struct slab *fresh = slab_create(c, a);
		if (!fresh) {
			spin_unlock_irqrestore(&heap_lock, flags);
			account_uncharge(payer, class_size[c]);
			return NULL;
		}
		list_add_tail(&partial[c], &fresh->node);
	}
	struct slab *s = list_entry(partial[c].next, struct slab, node);
	struct free_block *b = s->free;
	s->free = b->next;
	s->used++;
	if (!s->free) {
		list_remove(&s->node); /* full: back on the list when a block comes back */
	}
	spin_unlock_irqrestore(&heap_lock, flags);

	b->header = (struct block_header){.magic = HEAP_MAGIC, .class = (uint16_t)c, .acct = payer};
	return &b->header + 1;
}

static void *zeroed(void *p, size_t size)
{
	if (p) {
		memset(p, 0, size);
	}
	return p;
}

void *kmalloc_charged(struct mem_account *a, size_t size)
{
	return alloc(a, true, size);
}

void *kmalloc(size_t size)
{
	return alloc(NULL, false, size);
}

void *kzalloc_charged(struct mem_account *a, size_t size)
{
	return zeroed(alloc(a, true, size), size);
}

void *kzalloc_for(struct mem_account *a, size_t size)
{
	return zeroed(alloc(a, false, size), size);
}

void *kzalloc(size_t size)
{
	return zeroed(kmalloc(size), size);
}

/*
 * Takes back the live block p, checked, as far as that needs no lock: marks
 * it free and uncharges it, and returns its slab, for the caller to put it
 * on its free list. A large block's frames go back at once: NULL then.
 */
static struct slab *take_back(void *p)
{
	struct block_header *h = (struct block_header *)p - 1;

	if (h->magic != HEAP_MAGIC || (h->class != LARGE && h->class >= NUM_CLASSES)) {
		panic("kfree: %p is not a live heap block (magic 0x%x)", p, h->magic);
	}
	h->magic = HEAP_FREED;
	if (h->class == LARGE) {
		pmm_free_frames(virt_to_phys(h), h->frames);
		return NULL;
	}
	struct slab *s = (struct slab *)PAGE_ALIGN_DOWN((uintptr_t)h);
	if (s->magic != SLAB_MAGIC || s->class != h->class) {
		panic("kfree: %p is not in a slab of its class %u", p, h->class);
	}
	/* Before the block is on a free list, where another CPU may take it at once. */
	account_uncharge(h->acct, class_size[h->class]);
	return s;
}

void kfree_batch(void *const *blocks, size_t n)
{
	struct free_block *small[KFREE_BATCH_MAX];
	struct slab *slab_of[KFREE_BATCH_MAX];
	uint64_t empty[KFREE_BATCH_MAX]; /* slabs whose last block went back */
	size_t nsmall = 0, nempty = 0;

	if (n > KFREE_BATCH_MAX) {
		panic("kfree_batch: %lu blocks, more than %u", n, KFREE_BATCH_MAX);
	}
	/* Everything that needs no lock first, so that it is held only for the list work. */
	for (size_t i = 0; i < n; i++) {
		struct slab *s = blocks[i] ? take_back(blocks[i]) : NULL;
		if (s) {
			small[nsmall] = (struct free_block *)((struct block_header *)blocks[i] - 1);
			slab_of[nsmall++] = s;
		}
	}
	if (!nsmall) {
		return;
	}
	uint64_t flags = lock_heap();
	for (size_t i = 0; i < nsmall; i++) {
		struct slab *s = slab_of[i];
		if (!s->free) {
			list_add_tail(&partial[s->class], &s->node);
		}
		small[i]->next = s->free;
		s->free = small[i];
		if (--s->used == 0) {
			/* Its last block: off the class's list, to go back after unlocking. */
			list_remove(&s->node);
			empty[nempty++] = virt_to_phys(s);
		}
	}
	spin_unlock_irqrestore(&heap_lock, flags);
	/*
	 * Off every class's list with no block handed out: nobody else can
	 * reach them. Together, so that the frame allocator's lock is taken
	 * once for them all, not once a slab.
	 */
	pmm_free_pages(empty, nempty);
}

void kfree(void *p)
{
	kfree_batch(&p, 1);
}
