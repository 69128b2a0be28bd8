/*
 * Tests libc/src/stdlib/malloc.c over pages from mmap. This file supplies
 * libc's page, yield and fatal hooks: the pages are counted, so a test
 * can see large blocks go back to the system, can be refused, to see
 * ENOMEM, and a fatal error jumps back into the test that provoked it.
 *
 * The heart of it is a model check: thousands of random malloc, calloc,
 * realloc and free calls, each block filled with a pattern of its own and
 * checked before it is resized or freed, so overlapping blocks, a bad
 * copy in realloc or a block handed out twice shows up as a wrong byte.
 * The same runs on several threads at once, with blocks passed between
 * threads to be freed by one that did not allocate them.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libc_host.h"
#include "rand.h"
#include "test.h"

#define PAGE	    4096
#define SMALL_LIMIT (32 * 1024 - 16) /* the largest request malloc.c serves from a chunk */
#define ALIGNMENT   16

/* Pages currently mapped through the hooks, in bytes; updated by every thread. */
static size_t pages_mapped;
static size_t pages_unmapped_calls;
static bool pages_refused;

void *__libc_pages_map(size_t len)
{
	void *p;

	if (len % PAGE != 0 || __atomic_load_n(&pages_refused, __ATOMIC_RELAXED)) {
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		return NULL;
	}
	__atomic_add_fetch(&pages_mapped, len, __ATOMIC_RELAXED);
	return p;
}

void __libc_pages_unmap(void *addr, size_t len)
{
	munmap(addr, len);
	__atomic_sub_fetch(&pages_mapped, len, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pages_unmapped_calls, 1, __ATOMIC_RELAXED);
}

void __libc_yield(void)
{
	sched_yield();
}

/* A test that expects a fatal error points this at its setjmp; otherwise one ends the run. */
static jmp_buf *fatal_jump;
static char fatal_message[256];

void __libc_fatal(const char *msg)
{
	snprintf(fatal_message, sizeof(fatal_message), "%s", msg);
	if (fatal_jump) {
		longjmp(*fatal_jump, 1);
	}
	fprintf(stderr, "unexpected libc fatal error: %s\n", msg);
	abort();
}

static bool aligned(const void *p)
{
	return ((uintptr_t)p % ALIGNMENT) == 0;
}

static uint8_t pattern(uint32_t seed, size_t i)
{
	return (uint8_t)(seed + i * 131 + (i >> 8));
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = pattern(seed, i);
	}
}

/* The index of the first byte of p[0..n) that is not the pattern, or n. */
static size_t first_bad(const uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != pattern(seed, i)) {
			return i;
		}
	}
	return n;
}

/* Mostly small requests, some beyond the small limit, now and then a large one. */
static size_t random_size(uint64_t *rng)
{
	uint64_t r = test_random(rng);

	switch (r % 16) {
	case 0:
		return 0;
	case 1:
	case 2:
		return SMALL_LIMIT - 64 + (r >> 8) % 128; /* both sides of the limit */
	case 3:
		return 40000 + (r >> 8) % 200000;
	default:
		return (r >> 8) % 600;
	}
}

struct slot {
	uint8_t *p;
	size_t size;
	uint32_t seed;
};

/*
 * One step of the model on slots[i]: allocate an empty slot (by malloc
 * or calloc), otherwise check it and then free or realloc it. Returns
 * false after reporting a failure, which ends the run.
 */
static bool model_step(struct slot *s, uint64_t *rng, uint32_t *seeds)
{
	size_t n = random_size(rng), bad;
	uint64_t op = test_random(rng) % 8;
	uint8_t *q;

	if (!s->p) {
		if (op == 0) {
			q = spoor_calloc(1, n);
			for (bad = 0; q && bad < n && q[bad] == 0; bad++) {
			}
			CHECK(!q || bad == n, "calloc(1, %zu): byte %zu not zero", n, bad);
		} else {
			q = spoor_malloc(n);
		}
		CHECK(q && aligned(q), "malloc(%zu) gave %p", n, (void *)q);
		if (!q || !aligned(q)) {
			return false;
		}
		*s = (struct slot){.p = q, .size = n, .seed = (*seeds)++};
		fill(q, n, s->seed);
		return true;
	}
	bad = first_bad(s->p, s->size, s->seed);
	CHECK(bad == s->size, "block %p of %zu bytes: byte %zu changed", (void *)s->p, s->size,
	      bad);
	if (bad != s->size) {
		return false;
	}
	if (op < 4) {
		spoor_free(s->p);
		*s = (struct slot){0};
		return true;
	}
	q = spoor_realloc(s->p, n);
	if (n == 0) {
		CHECK(q == NULL, "realloc(p, 0) gave %p", (void *)q);
		*s = (struct slot){0};
		return q == NULL;
	}
	CHECK(q && aligned(q), "realloc(%zu -> %zu) gave %p", s->size, n, (void *)q);
	if (!q || !aligned(q)) {
		return false;
	}
	bad = first_bad(q, s->size < n ? s->size : n, s->seed);
	CHECK(bad == (s->size < n ? s->size : n), "realloc(%zu -> %zu): byte %zu not kept", s->size,
	      n, bad);
	*s = (struct slot){.p = q, .size = n, .seed = (*seeds)++};
	fill(q, n, s->seed);
	return true;
}

#define MODEL_SLOTS 64
#define MODEL_STEPS 20000

TEST(libc_malloc_model)
{
	struct slot slots[MODEL_SLOTS] = {{0}};
	uint64_t rng = 0x5eed0001;
	uint32_t seeds = 1;
	bool ok = true;

	for (int step = 0; step < MODEL_STEPS && ok; step++) {
		ok = model_step(&slots[test_random(&rng) % MODEL_SLOTS], &rng, &seeds);
	}
	for (int i = 0; i < MODEL_SLOTS; i++) {
		spoor_free(slots[i].p);
	}
}

/* Every request size up to the small limit and past it: aligned, usable, independent. */
TEST(libc_malloc_every_size)
{
	enum { STRIDE = 7, LIMIT = SMALL_LIMIT + 3 * PAGE };
	static uint8_t *blocks[LIMIT / STRIDE + 1];
	size_t count = 0;

	for (size_t n = 0; n <= LIMIT; n += STRIDE, count++) {
		blocks[count] = spoor_malloc(n);
		CHECK(blocks[count] && aligned(blocks[count]), "malloc(%zu) gave %p", n,
		      (void *)blocks[count]);
		if (!blocks[count]) {
			return;
		}
		fill(blocks[count], n, (uint32_t)n);
	}
	for (size_t i = 0; i < count; i++) {
		size_t n = i * STRIDE;

		CHECK_EQ_UINT(first_bad(blocks[i], n, (uint32_t)n), n, "every size");
		spoor_free(blocks[i]);
	}
}

TEST(libc_malloc_zero_and_null)
{
	void *a = spoor_malloc(0), *b = spoor_malloc(0);

	CHECK(a && b && a != b, "malloc(0) twice gave %p and %p", a, b);
	spoor_free(a);
	spoor_free(b);
	spoor_free(NULL);
	a = spoor_realloc(NULL, 10);
	CHECK(a != NULL, "realloc(NULL, 10) gave NULL");
	spoor_free(a);
}

TEST(libc_malloc_reuses_freed_block)
{
	void *a = spoor_malloc(100);

	spoor_free(a);
	CHECK(spoor_malloc(100) == a, "a freed block of the same class is not reused first");
	spoor_free(a);
}

TEST(libc_calloc_zeroes_reused_block)
{
	uint8_t *a = spoor_malloc(200), *b;
	size_t i = 0;

	spoor_memset(a, 0xff, 200);
	spoor_free(a);
	b = spoor_calloc(20, 10);
	CHECK(b == a, "calloc did not reuse the freed block, so this test proves nothing");
	while (i < 200 && b[i] == 0) {
		i++;
	}
	CHECK_EQ_UINT(i, 200, "calloc of a reused block");
	spoor_free(b);
}

struct overflow_row {
	size_t n, size;
};

static const struct overflow_row overflow_rows[] = {
    {SIZE_MAX, 2},	  {2, SIZE_MAX}, {SIZE_MAX / 2 + 1, 2}, {(size_t)1 << 32, (size_t)1 << 32},
    {SIZE_MAX, SIZE_MAX},
};

TEST(libc_calloc_overflow)
{
	for (size_t i = 0; i < sizeof(overflow_rows) / sizeof(overflow_rows[0]); i++) {
		const struct overflow_row *r = &overflow_rows[i];

		spoor_errno = 0;
		CHECK(spoor_calloc(r->n, r->size) == NULL, "calloc(%zu, %zu) succeeded", r->n,
		      r->size);
		CHECK_EQ_INT(spoor_errno, SPOOR_ENOMEM, "calloc overflow");
	}
}

/* Sizes whose rounding would wrap around must fail, not return a tiny block. */
TEST(libc_malloc_huge_sizes_fail)
{
	static const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 8, SIZE_MAX - 16, SIZE_MAX - PAGE,
				       SIZE_MAX - 2 * PAGE};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *p;

		spoor_errno = 0;
		p = spoor_malloc(sizes[i]);
		CHECK(p == NULL, "malloc(SIZE_MAX - %zu) gave %p", SIZE_MAX - sizes[i], p);
		CHECK_EQ_INT(spoor_errno, SPOOR_ENOMEM, "huge malloc");
		p = spoor_malloc(8);
		CHECK(spoor_realloc(p, sizes[i]) == NULL, "realloc to SIZE_MAX - %zu succeeded",
		      SIZE_MAX - sizes[i]);
		spoor_free(p); /* a failed realloc leaves the block alone */
	}
}

TEST(libc_malloc_large_blocks_return_pages)
{
	size_t before = __atomic_load_n(&pages_mapped, __ATOMIC_RELAXED);
	size_t calls = pages_unmapped_calls;
	uint8_t *p = spoor_malloc(1 << 20);

	CHECK(p != NULL, "malloc(1 MiB) failed");
	CHECK_EQ_UINT(pages_mapped - before, (1 << 20) + PAGE, "1 MiB and its header's page");
	p[0] = 1;
	p[(1 << 20) - 1] = 2;
	spoor_free(p);
	CHECK_EQ_UINT(pages_mapped, before, "after free");
	CHECK_EQ_UINT(pages_unmapped_calls - calls, 1, "unmaps");

	/* calloc of a large block relies on fresh pages being zero and does not write them. */
	p = spoor_calloc(3, 100000);
	CHECK(p && p[0] == 0 && p[299999] == 0, "large calloc");
	spoor_free(p);
	CHECK_EQ_UINT(pages_mapped, before, "after large calloc and free");
}

TEST(libc_realloc_keeps_and_moves)
{
	uint8_t *p = spoor_malloc(1000), *q;
	size_t before;

	fill(p, 1000, 9);
	CHECK(spoor_realloc(p, 900) == p, "a small shrink moved the block");
	CHECK(spoor_realloc(p, 1000) == p, "growing back within the block moved it");
	q = spoor_realloc(p, 100);
	CHECK(q != p, "a shrink to a tenth kept a block ten times too big");
	CHECK_EQ_UINT(first_bad(q, 100, 9), 100, "shrunk block");

	before = pages_mapped;
	p = spoor_realloc(q, 500000);
	CHECK_EQ_UINT(first_bad(p, 100, 9), 100, "grown to a large block");
	CHECK(pages_mapped > before, "a large block did not get its own pages");
	q = spoor_realloc(p, 50);
	CHECK_EQ_UINT(first_bad(q, 50, 9), 50, "large block shrunk to small");
	CHECK_EQ_UINT(pages_mapped, before, "the large block's pages went back");
	spoor_free(q);
}

TEST(libc_malloc_out_of_pages)
{
	/* Far more than the free list and the current chunk can hold. */
	enum { MANY = 100000 };
	void **blocks = calloc(MANY + 1, sizeof(*blocks));
	int got = 0;

	/* With no pages to be had, the free list and the chunk in use run dry: ENOMEM. */
	__atomic_store_n(&pages_refused, true, __ATOMIC_RELAXED);
	spoor_errno = 0;
	CHECK(spoor_malloc(1 << 20) == NULL, "a large malloc with no pages succeeded");
	CHECK_EQ_INT(spoor_errno, SPOOR_ENOMEM, "no pages, large");
	while (got < MANY && (blocks[got] = spoor_malloc(SMALL_LIMIT)) != NULL) {
		got++;
	}
	CHECK(got < MANY, "%d blocks of 32 KiB without a page", got);
	CHECK_EQ_INT(spoor_errno, SPOOR_ENOMEM, "no pages, small");
	__atomic_store_n(&pages_refused, false, __ATOMIC_RELAXED);
	blocks[got] = spoor_malloc(SMALL_LIMIT);
	CHECK(blocks[got] != NULL, "malloc does not recover when pages come back");
	for (int i = 0; i <= got; i++) {
		spoor_free(blocks[i]);
	}
	free(blocks);
}

/* Runs free or realloc on p expecting libc's fatal error; returns whether it came. */
static bool fatal_from(void *p, bool use_realloc)
{
	jmp_buf jump;
	volatile bool fatal = false;

	fatal_message[0] = '\0';
	fatal_jump = &jump;
	if (setjmp(jump) == 0) {
		if (use_realloc) {
			spoor_realloc(p, 64);
		} else {
			spoor_free(p);
		}
	} else {
		fatal = true;
	}
	fatal_jump = NULL;
	return fatal;
}

TEST(libc_free_detects_double_free_and_foreign_pointers)
{
	uint8_t *p = spoor_malloc(48), *big = spoor_malloc(100000), *q;

	spoor_free(p);
	CHECK(fatal_from(p, false), "double free of a small block not noticed");
	CHECK_EQ_STR(fatal_message, "free(): invalid pointer or double free", "double free");
	CHECK(fatal_from(p, true), "realloc of a freed block not noticed");
	CHECK_EQ_STR(fatal_message, "realloc(): invalid pointer or freed block", "realloc");
	CHECK(fatal_from(big + 4096, false), "free of a pointer into a block not noticed");
	/* The heap still works after the refused calls: nothing was left locked. */
	q = spoor_malloc(48);
	CHECK(q == p, "the freed block is not reused after the refused double free");
	spoor_free(q);
	spoor_free(big);
}

/*
 * Threads: each runs the model on its own slots and, now and then, swaps
 * one of its blocks into a shared mailbox, freeing the block it takes out
 * (another thread's) after checking it. A mailbox block carries its size
 * in its first word and the pattern after it, seeded by the size. A
 * worker's CHECK may race with another's, but its ok flag is checked
 * again by the main thread, so no failure goes uncounted.
 */
#define THREADS	       4
#define THREAD_STEPS   8000
#define MAILBOX	       16
#define MAILBOX_HEADER sizeof(size_t)

static uint8_t *mailbox[MAILBOX];

struct worker {
	uint64_t rng;
	bool ok;
};

static bool post(uint64_t *rng)
{
	size_t n = MAILBOX_HEADER + random_size(rng);
	uint8_t *p = spoor_malloc(n), *old;

	if (!p) {
		return false;
	}
	*(size_t *)p = n;
	fill(p + MAILBOX_HEADER, n - MAILBOX_HEADER, (uint32_t)n);
	old = __atomic_exchange_n(&mailbox[test_random(rng) % MAILBOX], p, __ATOMIC_ACQ_REL);
	if (old) {
		size_t m = *(size_t *)old;

		if (first_bad(old + MAILBOX_HEADER, m - MAILBOX_HEADER, (uint32_t)m) !=
		    m - MAILBOX_HEADER) {
			return false;
		}
		spoor_free(old);
	}
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct slot slots[MODEL_SLOTS] = {{0}};
	uint32_t seeds = 1;

	for (int step = 0; step < THREAD_STEPS && w->ok; step++) {
		if (test_random(&w->rng) % 8 == 0) {
			w->ok = post(&w->rng);
		} else {
			w->ok =
			    model_step(&slots[test_random(&w->rng) % MODEL_SLOTS], &w->rng, &seeds);
		}
	}
	for (int i = 0; i < MODEL_SLOTS; i++) {
		spoor_free(slots[i].p);
	}
	return NULL;
}

TEST(libc_malloc_threads)
{
	pthread_t threads[THREADS];
	struct worker workers[THREADS];

	for (int i = 0; i < THREADS; i++) {
		workers[i] = (struct worker){.rng = 0x7ead0000 + i, .ok = true};
		CHECK(pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0,
		      "pthread_create");
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
		CHECK(workers[i].ok, "thread %d found a damaged block", i);
	}
	for (int i = 0; i < MAILBOX; i++) {
		spoor_free(mailbox[i]);
		mailbox[i] = NULL;
	}
}

/*
 * Threads in a tight loop of small mallocs and frees, for the most
 * contention on the free lists: each fills its blocks with its own tag,
 * so a block handed to two threads at once shows the other's tag.
 */
#define CONTEND_ROUNDS 20000
#define CONTEND_HELD   8

static void *contend_main(void *arg)
{
	struct worker *w = arg;
	uint8_t tag = (uint8_t)(w->rng & 0xff);
	uint8_t *held[CONTEND_HELD];
	size_t sizes[CONTEND_HELD];

	for (int round = 0; round < CONTEND_ROUNDS && w->ok; round++) {
		for (int i = 0; i < CONTEND_HELD; i++) {
			sizes[i] = 1 + test_random(&w->rng) % 100;
			held[i] = spoor_malloc(sizes[i]);
			if (!held[i]) {
				w->ok = false;
				return NULL;
			}
			memset(held[i], tag, sizes[i]);
		}
		for (int i = 0; i < CONTEND_HELD; i++) {
			for (size_t j = 0; j < sizes[i]; j++) {
				w->ok &= held[i][j] == tag;
			}
			spoor_free(held[i]);
		}
	}
	return NULL;
}

TEST(libc_malloc_threads_contend)
{
	pthread_t threads[THREADS];
	struct worker workers[THREADS];

	for (int i = 0; i < THREADS; i++) {
		workers[i] = (struct worker){.rng = 0xc0de0000 + i + 1, .ok = true};
		CHECK(pthread_create(&threads[i], NULL, contend_main, &workers[i]) == 0,
		      "pthread_create");
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
		CHECK(workers[i].ok, "thread %d found another thread's tag in its block", i);
	}
}
