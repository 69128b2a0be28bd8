/*
 * malloc, calloc, realloc, free over pages from __libc_pages_map().
 *
 * Every block starts with a 16-byte header (magic, size class, size), so
 * payloads are 16-byte aligned. Two kinds of block:
 *
 *   small  blocks of up to SMALL_MAX bytes, header included, rounded up
 *          to a size class: 32 to 128 in steps of 16, then four classes
 *          per power of two (160, 192, 224, 256, 320, ...). A free small
 *          block goes on its class's list and is reused by that class
 *          only. New ones are cut from CHUNK_SIZE chunks of pages; when a
 *          chunk runs short, its tail is cut into the largest classes that
 *          fit and put on their lists, so nothing is lost. Chunks are kept
 *          for the life of the process.
 *   large  anything bigger gets its own page-rounded mapping, returned
 *          to the system by free(): big buffers do not pin memory.
 *
 * The magic tells a live block from a freed one, which turns most double
 * frees and foreign pointers into a clear fatal message instead of a
 * corrupted list. One lock guards the lists and the current chunk; large
 * blocks are mapped and unmapped outside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/mem.h"
#include "libc/src/internal.h"

#define ALIGN	     16
#define CHUNK_SIZE   (256 * 1024)
#define SMALL_SHIFT  15
#define SMALL_MAX    (1 << SMALL_SHIFT) /* the largest small block, header included: 32 KiB */
#define LINEAR_SHIFT 7			/* classes step by ALIGN up to 1 << LINEAR_SHIFT */
#define LINEAR_MAX   (1 << LINEAR_SHIFT)
#define STEPS	     4 /* classes per power of two above LINEAR_MAX */
#define STEP_SHIFT   2 /* log2(STEPS) */

#define LINEAR_CLASSES (LINEAR_MAX / ALIGN - 1) /* 32, 48, ..., 128 */
#define NCLASSES       (LINEAR_CLASSES + STEPS * (SMALL_SHIFT - LINEAR_SHIFT))

#define MAGIC_USED  0xa110ca7e
#define MAGIC_FREE  0xf4eeb10c
#define CLASS_LARGE UINT32_MAX

#define BAD_FREE    "free(): invalid pointer or double free"
#define BAD_REALLOC "realloc(): invalid pointer or freed block"

struct block {
	uint32_t magic; /* MAGIC_USED or MAGIC_FREE */
	uint32_t cls;	/* size class, or CLASS_LARGE */
	size_t size;	/* bytes of the block, header included: its class's size or its mapping's */
};

/* A free small block: the list link lives where the payload was. */
struct free_block {
	struct block header;
	struct free_block *next;
};

#define HEADER	  sizeof(struct block)
#define MIN_BLOCK (2 * ALIGN)

_Static_assert(HEADER == ALIGN, "the header keeps payloads 16-byte aligned");
_Static_assert(sizeof(struct free_block) <= MIN_BLOCK, "the smallest class holds a list link");
_Static_assert(STEPS == 1 << STEP_SHIFT, "steps");
_Static_assert(CHUNK_SIZE % PAGE_SIZE_USER == 0 && CHUNK_SIZE >= SMALL_MAX, "chunk size");

static struct {
	struct libc_lock lock;
	struct free_block *free[NCLASSES]; /* [lock] */
	unsigned char *next;		   /* [lock] the current chunk's first unused byte */
	unsigned char *end;		   /* [lock] the current chunk's end */
} heap;

/* The smallest class whose blocks hold size bytes (a multiple of ALIGN, MIN_BLOCK..SMALL_MAX). */
static unsigned class_of(size_t size)
{
	unsigned shift;
	size_t step;

	if (size <= LINEAR_MAX) {
		return size / ALIGN - MIN_BLOCK / ALIGN;
	}
	shift = 63 - __builtin_clzll(size - 1); /* 2^shift < size <= 2^(shift + 1) */
	step = (size_t)1 << (shift - STEP_SHIFT);
	return LINEAR_CLASSES + (shift - LINEAR_SHIFT) * STEPS +
	       (size - ((size_t)1 << shift) + step - 1) / step - 1;
}

static size_t class_size(unsigned cls)
{
	unsigned k, shift;

	if (cls < LINEAR_CLASSES) {
		return MIN_BLOCK + cls * ALIGN;
	}
	k = cls - LINEAR_CLASSES;
	shift = LINEAR_SHIFT + k / STEPS;
	return ((size_t)1 << shift) + (k % STEPS + 1) * ((size_t)1 << (shift - STEP_SHIFT));
}

/* Bytes of block a request of n bytes needs, header included; 0 when that overflows. */
static size_t block_size(size_t n)
{
	size_t size;

	if (n > SIZE_MAX - HEADER - PAGE_SIZE_USER) {
		return 0;
	}
	size = n + HEADER;
	if (size > SMALL_MAX) {
		return (size + PAGE_SIZE_USER - 1) & ~(size_t)(PAGE_SIZE_USER - 1);
	}
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	return size < MIN_BLOCK ? MIN_BLOCK : size;
}

static struct block *header_of(void *p)
{
	return (struct block *)p - 1;
}

/* Puts b, a small block, on its class's free list. Called with the lock held. */
static void push_free(struct block *b)
{
	struct free_block *f = (struct free_block *)b;

	b->magic = MAGIC_FREE;
	f->next = heap.free[b->cls];
	heap.free[b->cls] = f;
}

/* Cuts a block of class cls off the current chunk. Called with the lock held and room for it. */
static struct block *cut(unsigned cls)
{
	struct block *b = (struct block *)heap.next;

	b->cls = cls;
	b->size = class_size(cls);
	heap.next += b->size;
	return b;
}

/* Files the rest of the current chunk as free blocks, largest classes first. */
static void retire_chunk(void)
{
	while ((size_t)(heap.end - heap.next) >= MIN_BLOCK) {
		size_t left = heap.end - heap.next;
		unsigned cls = class_of(left);

		if (class_size(cls) > left) {
			cls--;
		}
		push_free(cut(cls));
	}
}

/* A block of class cls from its free list or a chunk; NULL when no pages are left. Lock held. */
static struct block *small_alloc(unsigned cls)
{
	struct free_block *f = heap.free[cls];
	unsigned char *chunk;

	if (f) {
		heap.free[cls] = f->next;
		return &f->header;
	}
	if ((size_t)(heap.end - heap.next) < class_size(cls)) {
		chunk = __libc_pages_map(CHUNK_SIZE);
		if (!chunk) {
			return NULL;
		}
		retire_chunk();
		heap.next = chunk;
		heap.end = chunk + CHUNK_SIZE;
	}
	return cut(cls);
}

void *malloc(size_t n)
{
	size_t size = block_size(n);
	struct block *b;

	if (size == 0) {
		b = NULL;
	} else if (size > SMALL_MAX) {
		b = __libc_pages_map(size);
		if (b) {
			b->cls = CLASS_LARGE;
			b->size = size;
		}
	} else {
		lock_acquire(&heap.lock);
		b = small_alloc(class_of(size));
		lock_release(&heap.lock);
	}
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	b->magic = MAGIC_USED;
	return b + 1;
}

void free(void *p)
{
	struct block *b;

	if (!p) {
		return;
	}
	b = header_of(p);
	if (b->cls == CLASS_LARGE) {
		if (b->magic != MAGIC_USED) {
			__libc_fatal(BAD_FREE);
		}
		__libc_pages_unmap(b, b->size);
		return;
	}
	/* Checked under the lock: two threads freeing one block must not both pass. */
	lock_acquire(&heap.lock);
	if (b->magic != MAGIC_USED || b->cls >= NCLASSES) {
		lock_release(&heap.lock);
		__libc_fatal(BAD_FREE);
	}
	push_free(b);
	lock_release(&heap.lock);
}

void *calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(total);
	/* A large block is a fresh mapping, already zero: writing would only fault pages in. */
	if (p && header_of(p)->cls != CLASS_LARGE) {
		memset(p, 0, total);
	}
	return p;
}

/*
 * Keeps the block when the new size fits and still needs at least half of
 * it; otherwise moves to a block of the right size. If that allocation
 * fails, a shrink keeps the old block and a growth returns NULL with p
 * untouched, as C says.
 */
void *realloc(void *p, size_t n)
{
	struct block *b;
	size_t capacity;
	void *q;

	if (!p) {
		return malloc(n);
	}
	if (n == 0) {
		free(p);
		return NULL;
	}
	b = header_of(p);
	if (b->magic != MAGIC_USED) {
		__libc_fatal(BAD_REALLOC);
	}
	capacity = b->size - HEADER;
	if (n <= capacity && block_size(n) >= b->size / 2) {
		return p;
	}
	q = malloc(n);
	if (!q) {
		return n <= capacity ? p : NULL;
	}
	memcpy(q, p, n < capacity ? n : capacity);
	free(p);
	return q;
}
