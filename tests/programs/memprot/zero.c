/*
 * memprot's zero-page cases: reading untouched anonymous memory, from the
 * kernel or the CPU, costs no frames; the first write to a page gives it
 * its own, zeroed, whichever thread and CPU makes it.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memprot.h"

#define MIB_MAX	    4096
#define COW_PAGES   256
#define FRESH_PAGES 16
#define THREADS_MAX 16

/* A whole number in [min, max] from all of s, or -1. */
static long parse(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end == s || *end || v < min || v > max ? -1 : v;
}

/* The index of the first word of pages pages from p that is not zero, or -1. */
static long first_nonzero(const volatile uint64_t *p, uint64_t pages)
{
	for (uint64_t i = 0; i < pages * WORDS_PER_PAGE; i++) {
		if (p[i]) {
			return (long)i;
		}
	}
	return -1;
}

int zero_console(const char *arg)
{
	long mib = parse(arg, 1, MIB_MAX);

	if (mib < 0) {
		printf("memprot: zero-console: MIB must be 1..%d\n", MIB_MAX);
		return 2;
	}
	uint64_t bytes = (uint64_t)mib * MIB;
	uint64_t *p = map_anon("zero-console", bytes / PAGE, PROT_READ);
	if (!p) {
		return 1;
	}
	uint64_t before = frames_free();
	long wrote = sys_console_write(CAP_SLOT_CONSOLE, p, bytes);
	uint64_t after = frames_free();
	printf("memprot: zero-console %ld MiB: console_write returned %ld, free frames %llu "
	       "before, %llu after\n",
	       mib, wrote, (unsigned long long)before, (unsigned long long)after);
	return wrote == (long)bytes && !sys_mem_unmap(p, bytes) ? 0 : 1;
}

int zero_cpu(const char *arg)
{
	long mib = parse(arg, 1, MIB_MAX);

	if (mib < 0) {
		printf("memprot: zero-cpu: MIB must be 1..%d\n", MIB_MAX);
		return 2;
	}
	uint64_t pages = (uint64_t)mib * MIB / PAGE;
	const volatile uint64_t *p = map_anon("zero-cpu", pages, PROT_READ);
	if (!p) {
		return 1;
	}
	uint64_t before = frames_free();
	uint64_t seen = 0;
	/* One word a page, at a different offset in each: the whole region is one page's zeros. */
	for (uint64_t i = 0; i < pages; i++) {
		seen |= p[i * WORDS_PER_PAGE + i % WORDS_PER_PAGE];
	}
	long nonzero = first_nonzero(p, 1);
	uint64_t after = frames_free();
	printf("memprot: zero-cpu %ld MiB: %llu pages read, %s, free frames %llu before, %llu "
	       "after\n",
	       mib, (unsigned long long)pages, seen || nonzero >= 0 ? "NOT ALL ZERO" : "all zero",
	       (unsigned long long)before, (unsigned long long)after);
	return !seen && nonzero < 0 && !sys_mem_unmap((void *)p, pages * PAGE) ? 0 : 1;
}

static volatile uint64_t *cow_region;
static uint32_t cow_threads;
static uint32_t cow_cpus;
static uint32_t cow_arrived; /* [a] threads at the starting line */
static uint32_t cow_failed;  /* [a] threads that saw something wrong */

static uint64_t cow_value(uint64_t page, uint64_t thread)
{
	return (page + 1) << 32 | (thread + 1);
}

/*
 * Thread t reads word t of every page (a zero, from the zero page for the
 * first to come), writes its value there and reads it back. All threads go
 * through the pages in the same order, so they fault on the same page at
 * about the same time: reads map the zero page while others copy it.
 */
static int cow_worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;

	sys_thread_set_cpu((int)(t % cow_cpus));
	/* Everyone on their CPU before the first touch, so the faults race. */
	__atomic_fetch_add(&cow_arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&cow_arrived, __ATOMIC_ACQUIRE) < cow_threads) {
		sys_yield();
	}
	for (uint64_t page = 0; page < COW_PAGES; page++) {
		volatile uint64_t *w = &cow_region[page * WORDS_PER_PAGE + t];
		uint64_t was = *w;
		*w = cow_value(page, t);
		uint64_t now = *w;
		if (was || now != cow_value(page, t)) {
			printf("memprot: zero-cow FAIL: thread %u, page %llu: read 0x%llx first, "
			       "0x%llx after writing\n",
			       t, (unsigned long long)page, (unsigned long long)was,
			       (unsigned long long)now);
			__atomic_fetch_add(&cow_failed, 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

/* After the workers: word t of every page holds thread t's value, every other word zero. */
static int cow_check(void)
{
	for (uint64_t page = 0; page < COW_PAGES; page++) {
		for (uint64_t i = 0; i < WORDS_PER_PAGE; i++) {
			uint64_t want = i < cow_threads ? cow_value(page, i) : 0;
			uint64_t got = cow_region[page * WORDS_PER_PAGE + i];
			if (got != want) {
				printf(
				    "memprot: zero-cow FAIL: page %llu word %llu is 0x%llx, want "
				    "0x%llx\n",
				    (unsigned long long)page, (unsigned long long)i,
				    (unsigned long long)got, (unsigned long long)want);
				return 1;
			}
		}
	}
	return 0;
}

/*
 * A kernel copy's write to a page only read so far: the page gets a frame
 * of its own, which holds what the kernel wrote and zeros after it.
 */
static int kernel_write_after_read(void)
{
	const size_t info_words = sizeof(struct sys_info) / sizeof(uint64_t);
	volatile uint64_t *page = map_anon("zero-cow", 1, PROT_READ | PROT_WRITE);

	if (!page) {
		return 1;
	}
	long zero_before = first_nonzero(page, 1);
	long err = sys_sys_info((struct sys_info *)(uintptr_t)page);
	uint32_t ncpus = ((volatile struct sys_info *)page)->ncpus;
	long nonzero_after = -1;
	for (size_t i = info_words; i < WORDS_PER_PAGE && nonzero_after < 0; i++) {
		nonzero_after = page[i] ? (long)i : -1;
	}
	if (zero_before >= 0 || err || ncpus != cow_cpus || nonzero_after >= 0) {
		printf("memprot: zero-cow FAIL: sys_info into a page read before: first "
		       "non-zero word %ld before, returned %ld, ncpus %u, non-zero word %ld "
		       "after it\n",
		       zero_before, err, ncpus, nonzero_after);
		return 1;
	}
	return sys_mem_unmap((void *)page, PAGE) ? 1 : 0;
}

int zero_cow(const char *arg)
{
	struct sys_info info;
	int tids[THREADS_MAX];
	long n = parse(arg, 1, THREADS_MAX);

	if (n < 0) {
		printf("memprot: zero-cow: THREADS must be 1..%d\n", THREADS_MAX);
		return 2;
	}
	sys_sys_info(&info);
	cow_threads = (uint32_t)n;
	cow_cpus = info.ncpus;
	cow_region = map_anon("zero-cow", COW_PAGES, PROT_READ | PROT_WRITE);
	if (!cow_region) {
		return 1;
	}
	for (long t = 0; t < n; t++) {
		tids[t] = thread_spawn(cow_worker, (void *)(uintptr_t)t, 0);
		if (tids[t] < 0) {
			printf("memprot: zero-cow FAIL: thread_spawn: %s\n", strerror(-tids[t]));
			return 1;
		}
	}
	for (long t = 0; t < n; t++) {
		thread_join(tids[t], NULL);
	}
	if (__atomic_load_n(&cow_failed, __ATOMIC_RELAXED) || cow_check() ||
	    kernel_write_after_read()) {
		return 1;
	}
	/* Nobody wrote the zero page: an untouched region still reads zeros. */
	const volatile uint64_t *fresh = map_anon("zero-cow", FRESH_PAGES, PROT_READ);
	long nonzero = fresh ? first_nonzero(fresh, FRESH_PAGES) : 0;
	if (nonzero >= 0) {
		printf("memprot: zero-cow FAIL: an untouched region's word %ld is not zero\n",
		       nonzero);
		return 1;
	}
	printf("memprot: zero-cow ok (%ld threads on %u cpus, %d pages: zeros, then each "
	       "thread's own word; then a kernel copy's)\n",
	       n, info.ncpus, COW_PAGES);
	return sys_mem_unmap((void *)cow_region, COW_PAGES * PAGE) ||
		       sys_mem_unmap((void *)fresh, FRESH_PAGES * PAGE)
		   ? 1
		   : 0;
}
