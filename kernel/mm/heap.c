/*
 * heap: each block starts with a 16-byte header naming its size class (or
 * its frame count) and a magic that kfree() checks, which catches double
 * frees and frees of foreign pointers. Class frames are never returned to
 * the frame allocator: freed blocks wait on their class's free list.
 */
#include "mm/heap.h"

#include <stdint.h>

#include "lib/panic.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

#define MIN_SHIFT	5 /* 32-byte blocks */
#define NUM_CLASSES	7 /* 32 .. 2048 */
#define MAX_CLASS_BLOCK (1u << (MIN_SHIFT + NUM_CLASSES - 1))
#define HEAP_MAGIC	0x5ee9a110u
#define HEAP_FREED	0xdeadb10cu
#define LARGE		0xffffu

struct block_header {
	uint32_t magic;
	uint16_t class; /* LARGE for frame runs */
	uint16_t reserved;
	uint64_t frames; /* for LARGE blocks */
};

_Static_assert(sizeof(struct block_header) == 16, "keeps payloads 16-byte aligned");

struct free_block {
	struct block_header header;
	struct free_block *next;
};

static struct spinlock heap_lock = SPINLOCK_INIT;
static struct free_block *free_lists[NUM_CLASSES]; /* [heap_lock] */

static unsigned class_for(size_t total)
{
	unsigned c = 0;

	while ((1u << (MIN_SHIFT + c)) < total) {
		c++;
	}
	return c;
}

/* Carves one frame into blocks of class c. Called with heap_lock held. */
static int refill(unsigned c)
{
	uint64_t pa;
	size_t block = 1u << (MIN_SHIFT + c);

	if (pmm_alloc_frames(1, &pa)) {
		return -1;
	}
	uint8_t *frame = phys_to_virt(pa);
	for (size_t off = 0; off + block <= PAGE_SIZE; off += block) {
		struct free_block *b = (struct free_block *)(frame + off);
		b->header.magic = HEAP_FREED;
		b->next = free_lists[c];
		free_lists[c] = b;
	}
	return 0;
}

static void *alloc_large(size_t total)
{
	uint64_t frames = PAGE_ALIGN_UP(total) / PAGE_SIZE;
	uint64_t pa;

	if (pmm_alloc_frames(frames, &pa)) {
		return NULL;
	}
	struct block_header *h = phys_to_virt(pa);
	*h = (struct block_header){.magic = HEAP_MAGIC, .class = LARGE, .frames = frames};
	return h + 1;
}

void *kmalloc(size_t size)
{
	if (!size || size > SIZE_MAX - PAGE_SIZE) {
		return NULL;
	}
	size_t total = size + sizeof(struct block_header);
	if (total > MAX_CLASS_BLOCK) {
		return alloc_large(total);
	}
	unsigned c = class_for(total);
	uint64_t flags = spin_lock_irqsave(&heap_lock);
	if (!free_lists[c] && refill(c)) {
		spin_unlock_irqrestore(&heap_lock, flags);
		return NULL;
	}
	struct free_block *b = free_lists[c];
	free_lists[c] = b->next;
	spin_unlock_irqrestore(&heap_lock, flags);

	b->header = (struct block_header){.magic = HEAP_MAGIC, .class = (uint16_t)c};
	return &b->header + 1;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p) {
		memset(p, 0, size);
	}
	return p;
}

void kfree(void *p)
{
	if (!p) {
		return;
	}
	struct block_header *h = (struct block_header *)p - 1;
	if (h->magic != HEAP_MAGIC || (h->class != LARGE && h->class >= NUM_CLASSES)) {
		panic("kfree: %p is not a live heap block (magic 0x%x)", p, h->magic);
	}
	h->magic = HEAP_FREED;
	if (h->class == LARGE) {
		pmm_free_frames(virt_to_phys(h), h->frames);
		return;
	}
	struct free_block *b = (struct free_block *)h;
	uint64_t flags = spin_lock_irqsave(&heap_lock);
	b->next = free_lists[h->class];
	free_lists[h->class] = b;
	spin_unlock_irqrestore(&heap_lock, flags);
}
