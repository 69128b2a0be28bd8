/*
 * memtest: exercises user memory and checks everything it reads back.
 *
 *   memtest             runs the checks below; prints "memtest: ok (...)"
 *                       and exits 0, or one line per failure and exits 1.
 *   memtest hold [dirty] keeps its data segment mapped (shared with the
 *                       program image, or, with dirty, written and so
 *                       private) and sleeps until killed, so that the
 *                       shell can watch copy-on-write with mem and ps.
 *
 * The checks: an anonymous region is demand-paged and zero-filled;
 * unmapping gives the frames back and a remap is zero again; a region
 * split by a partial unmap keeps the rest; protect to read-only and back
 * keeps the data; a copy-on-write copy shares frames until either side
 * writes, and neither side sees the other's writes; a frame object's
 * bytes round-trip through frame_write/frame_read and a mapping, and a
 * read-only copy of its capability cannot be mapped writable; and the
 * program's own initialized data is shared with the image until written,
 * each page written costing a frame. The frame checks count what is
 * charged to memtest's own tree (its ps record's tree_mem, abi/proc.h
 * MEMORY), not the machine's free frames, which any other program moves
 * meanwhile: the release of the program the shell ran before, finishing
 * on another CPU, once took 2 frames from each of two checks.
 *
 * Everything mapped is unmapped and every capability deleted before exit.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#define PAGE	       PAGE_SIZE_USER
#define WORDS_PER_PAGE (PAGE / sizeof(uint64_t))
#define RW	       (PROT_READ | PROT_WRITE)
#define ANON_PAGES     256
#define PROTECT_PAGES  16
#define COW_PAGES      64
#define FRAME_PAGES    4
#define THREADS_MAX    256 /* ps records read to find its own */
#define REPORT_MAX     160
#define DATA_PAGES     64 /* 256 KiB of initialized data */
#define DATA_FILL      0x5aa5c33cf00f9669ull
#define NS_PER_SECOND  1000000000ull

/* Mapping is lazy: a region this many pages long may cost at most this many frames up front. */
#define SETUP_FRAMES_MAX(pages) ((pages) / 4)

/* In .data, not .bss: every page starts out as the program image's. */
static uint64_t data[DATA_PAGES * WORDS_PER_PAGE]
    __attribute__((aligned(PAGE))) = {[0 ... DATA_PAGES * WORDS_PER_PAGE - 1] = DATA_FILL};

static uint8_t frame_in[FRAME_PAGES * PAGE];
static uint8_t frame_out[FRAME_PAGES * PAGE];

static int failures;

/* Reports one failed check. */
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		printf("memtest: FAIL " __VA_ARGS__);                                              \
		printf("\n");                                                                      \
		failures++;                                                                        \
	} while (0)

static struct thread_info threads[THREADS_MAX];

/* This process's ps record; a zeroed one (and a failure) if the list lacks it. */
static struct thread_info own_record(void)
{
	static const struct thread_info none;
	long n = sys_thread_list(threads, THREADS_MAX);
	long pid = sys_getpid();

	for (long i = 0; i < n; i++) {
		if (threads[i].pid == (uint32_t)pid) {
			return threads[i];
		}
	}
	FAIL("ps: no record of pid %ld among %ld", pid, n);
	return none;
}

/*
 * The frames charged to this tree, kernel objects' bytes rounded down:
 * they grow as memtest takes frames and shrink as it gives them back,
 * whatever other trees do meanwhile.
 */
static uint64_t frames_charged(void)
{
	return own_record().tree_mem / PAGE;
}

/* The frames taken between two counts (given back: negative). */
static long long taken(uint64_t from, uint64_t to)
{
	return (long long)(to - from);
}

/* The value a pattern keeps in the word at p: different for every word and seed. */
static uint64_t pattern(const volatile uint64_t *p, uint64_t seed)
{
	return ((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) ^ seed;
}

static void fill(volatile uint64_t *p, size_t words, uint64_t seed)
{
	for (size_t i = 0; i < words; i++) {
		p[i] = pattern(&p[i], seed);
	}
}

/* The index of the first word that does not hold the pattern (seed 0 with zero: all zero), or -1.
 */
static long mismatch(const volatile uint64_t *p, size_t words, uint64_t seed, int zero)
{
	for (size_t i = 0; i < words; i++) {
		if (p[i] != (zero ? 0 : pattern(&p[i], seed))) {
			return (long)i;
		}
	}
	return -1;
}

static void expect_pattern(const char *what, const volatile uint64_t *p, size_t words,
			   uint64_t seed)
{
	long i = mismatch(p, words, seed, 0);

	if (i >= 0) {
		FAIL("%s: word at %p is 0x%llx, want 0x%llx", what, (void *)&p[i],
		     (unsigned long long)p[i], (unsigned long long)pattern(&p[i], seed));
	}
}

static void expect_zero(const char *what, const volatile uint64_t *p, size_t words)
{
	long i = mismatch(p, words, 0, 1);

	if (i >= 0) {
		FAIL("%s: word at %p is 0x%llx, want 0", what, (void *)&p[i],
		     (unsigned long long)p[i]);
	}
}

static void expect_ret(const char *what, long got, long want)
{
	if (got != want) {
		FAIL("%s: returned %ld, want %ld", what, got, want);
	}
}

/* Maps an anonymous read-write region; NULL (and a failure) if it cannot. */
static uint64_t *map(const char *what, size_t pages)
{
	long addr = sys_mem_map_anon(NULL, pages * PAGE, RW);

	if (addr < 0) {
		FAIL("%s: mem_map_anon of %zu pages: %s", what, pages, strerror((int)-addr));
		return NULL;
	}
	return (uint64_t *)addr;
}

static void unmap(const char *what, void *addr, size_t pages)
{
	expect_ret(what, sys_mem_unmap(addr, pages * PAGE), 0);
}

/* Demand paging, zero fill, unmap giving frames back, remap, partial unmap. */
static void check_anon(void)
{
	const size_t words = ANON_PAGES * WORDS_PER_PAGE;
	uint64_t before = frames_charged();
	uint64_t *a = map("anon", ANON_PAGES);

	if (!a) {
		return;
	}
	uint64_t mapped = frames_charged();
	if (taken(before, mapped) > SETUP_FRAMES_MAX(ANON_PAGES)) {
		FAIL("anon: mapping %d pages took %lld frames before any touch", ANON_PAGES,
		     taken(before, mapped));
	}
	expect_zero("anon: a new region", a, words);
	fill(a, words, 1);
	uint64_t touched = frames_charged();
	if (taken(before, touched) < ANON_PAGES) {
		FAIL("anon: writing %d pages took only %lld frames", ANON_PAGES,
		     taken(before, touched));
	}
	expect_pattern("anon: written pages", a, words, 1);

	/* Unmapping one page in the middle splits the region and leaves the rest as it was. */
	uint64_t *middle = a + (ANON_PAGES / 2) * WORDS_PER_PAGE;
	unmap("anon: unmap one middle page", middle, 1);
	expect_pattern("anon: pages below the hole", a, (ANON_PAGES / 2) * WORDS_PER_PAGE, 1);
	expect_pattern("anon: pages above the hole", middle + WORDS_PER_PAGE,
		       (ANON_PAGES / 2 - 1) * WORDS_PER_PAGE, 1);
	expect_ret("anon: map the hole again", sys_mem_map_anon(middle, PAGE, RW), (long)middle);
	expect_zero("anon: the remapped hole", middle, WORDS_PER_PAGE);
	expect_ret("anon: map over a mapped page", sys_mem_map_anon(a, PAGE, RW), -EEXIST);

	unmap("anon: unmap the region", a, ANON_PAGES);
	uint64_t unmapped = frames_charged();
	if (taken(unmapped, touched) < ANON_PAGES - 1) {
		FAIL("anon: unmapping %d written pages gave back only %lld frames", ANON_PAGES,
		     taken(unmapped, touched));
	}
	expect_ret("anon: map at the same address again",
		   sys_mem_map_anon(a, ANON_PAGES * PAGE, RW), (long)a);
	expect_zero("anon: the region mapped again", a, words);
	unmap("anon: unmap it again", a, ANON_PAGES);
}

/* Read-only and back, on the whole region and on a part of it: the data stays. */
static void check_protect(void)
{
	const size_t words = PROTECT_PAGES * WORDS_PER_PAGE;
	uint64_t *p = map("protect", PROTECT_PAGES);

	if (!p) {
		return;
	}
	fill(p, words, 2);
	expect_ret("protect: read-only", sys_mem_protect(p, PROTECT_PAGES * PAGE, PROT_READ), 0);
	expect_pattern("protect: read-only pages", p, words, 2);
	expect_ret("protect: read-write again", sys_mem_protect(p, PROTECT_PAGES * PAGE, RW), 0);
	fill(p, words / 2, 3);
	expect_pattern("protect: rewritten half", p, words / 2, 3);
	expect_pattern("protect: untouched half", p + words / 2, words / 2, 2);

	uint64_t *part = p + 4 * WORDS_PER_PAGE;
	expect_ret("protect: a part read-only", sys_mem_protect(part, 4 * PAGE, PROT_READ), 0);
	expect_pattern("protect: the read-only part", part, 4 * WORDS_PER_PAGE, 3);
	expect_ret("protect: the part read-write", sys_mem_protect(part, 4 * PAGE, RW), 0);
	fill(p, words, 4);
	expect_pattern("protect: rewritten after split", p, words, 4);
	unmap("protect: unmap", p, PROTECT_PAGES);
	if (sys_mem_protect(p, PAGE, PROT_READ) >= 0) {
		FAIL("protect: protecting an unmapped page succeeded");
	}
}

/* A copy-on-write copy shares frames until written; the two sides never see each other's writes. */
static void check_cow_copy(void)
{
	const size_t words = COW_PAGES * WORDS_PER_PAGE;
	const size_t half = words / 2;
	uint64_t *src = map("cow", COW_PAGES);

	if (!src) {
		return;
	}
	fill(src, words, 5);
	uint64_t before = frames_charged();
	long addr = sys_mem_cow_copy(src, COW_PAGES * PAGE);
	if (addr < 0) {
		FAIL("cow: mem_cow_copy: %s", strerror((int)-addr));
		unmap("cow: unmap the source", src, COW_PAGES);
		return;
	}
	uint64_t *copy = (uint64_t *)addr;
	uint64_t copied = frames_charged();
	if (taken(before, copied) > SETUP_FRAMES_MAX(COW_PAGES)) {
		FAIL("cow: copying %d pages took %lld frames before any write", COW_PAGES,
		     taken(before, copied));
	}
	/* The pattern depends on the address: compare the copy word by word with the source. */
	for (size_t i = 0; i < words; i++) {
		if (copy[i] != pattern(&src[i], 5)) {
			FAIL("cow: the copy's word %zu is 0x%llx, want 0x%llx", i,
			     (unsigned long long)copy[i], (unsigned long long)pattern(&src[i], 5));
			break;
		}
	}

	fill(src, half, 6);
	uint64_t after_src = frames_charged();
	if (taken(copied, after_src) < COW_PAGES / 2) {
		FAIL("cow: writing %d shared pages of the source took only %lld frames",
		     COW_PAGES / 2, taken(copied, after_src));
	}
	fill(copy + half, half, 7);
	uint64_t after_copy = frames_charged();
	if (taken(after_src, after_copy) < COW_PAGES / 2) {
		FAIL("cow: writing %d shared pages of the copy took only %lld frames",
		     COW_PAGES / 2, taken(after_src, after_copy));
	}
	expect_pattern("cow: the source's written half", src, half, 6);
	expect_pattern("cow: the copy's written half", copy + half, half, 7);
	expect_pattern("cow: the source's other half (the copy wrote there)", src + half, half, 5);
	for (size_t i = 0; i < half; i++) {
		if (copy[i] != pattern(&src[i], 5)) {
			FAIL("cow: the copy's word %zu changed to 0x%llx after the source wrote it",
			     i, (unsigned long long)copy[i]);
			break;
		}
	}
	unmap("cow: unmap the copy", copy, COW_PAGES);
	unmap("cow: unmap the source", src, COW_PAGES);
}

static void check_frame_bytes(const char *what, const uint8_t *got, size_t offset, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (got[i] != frame_in[offset + i]) {
			FAIL("%s: byte %zu is 0x%02x, want 0x%02x", what, offset + i, got[i],
			     frame_in[offset + i]);
			return;
		}
	}
}

/* A frame object: syscalls copy in and out, mappings share it, a read-only cap stays read-only. */
static void check_frame(void)
{
	const size_t size = FRAME_PAGES * PAGE;
	const size_t odd = PAGE - 5; /* reads and writes that straddle a page boundary */
	struct cap_info info;
	long slot = sys_frame_create(size);

	if (slot < 0) {
		FAIL("frame: frame_create: %s", strerror((int)-slot));
		return;
	}
	expect_ret("frame: identify", sys_cap_identify((int)slot, &info), 0);
	expect_ret("frame: identify's size", (long)info.size, (long)size);
	expect_ret("frame: read it new", sys_frame_read((int)slot, 0, frame_out, size), 0);
	for (size_t i = 0; i < size; i++) {
		if (frame_out[i]) {
			FAIL("frame: a new frame's byte %zu is 0x%02x, want 0", i, frame_out[i]);
			break;
		}
	}
	for (size_t i = 0; i < size; i++) {
		frame_in[i] = (uint8_t)(i * 7 + 3);
	}
	expect_ret("frame: frame_write", sys_frame_write((int)slot, 0, frame_in, size), 0);
	expect_ret("frame: frame_read", sys_frame_read((int)slot, 0, frame_out, size), 0);
	check_frame_bytes("frame: frame_read", frame_out, 0, size);
	memset(frame_out, 0, size);
	expect_ret("frame: frame_read across pages",
		   sys_frame_read((int)slot, odd, frame_out, 2 * PAGE), 0);
	check_frame_bytes("frame: frame_read across pages", frame_out, odd, 2 * PAGE);
	expect_ret("frame: frame_read past the end",
		   sys_frame_read((int)slot, size - 1, frame_out, 2), -EINVAL);

	long rw = sys_mem_map_frame((int)slot, NULL, RW);
	if (rw <= 0) {
		FAIL("frame: mem_map_frame read-write returned %ld", rw);
		sys_cap_delete((int)slot);
		return;
	}
	uint8_t *m = (uint8_t *)rw;
	check_frame_bytes("frame: the mapping", m, 0, size);
	/* A write through the mapping is the object's: frame_read sees it. */
	frame_in[odd] = m[odd] = 0xa5;
	frame_in[odd + 1] = m[odd + 1] = 0x5a;
	memset(frame_out, 0, size);
	expect_ret("frame: frame_read after a write through the mapping",
		   sys_frame_read((int)slot, odd, frame_out, 2), 0);
	check_frame_bytes("frame: frame_read after a write through the mapping", frame_out, odd, 2);

	long ro = sys_cap_copy((int)slot, CAP_RIGHT_READ);
	if (ro < 0) {
		FAIL("frame: cap_copy read-only: %s", strerror((int)-ro));
	} else {
		expect_ret("frame: map a read-only copy writable",
			   sys_mem_map_frame((int)ro, NULL, RW), -EACCES);
		long r = sys_mem_map_frame((int)ro, NULL, PROT_READ);
		if (r <= 0) {
			FAIL("frame: mapping a read-only copy read-only returned %ld", r);
		} else {
			check_frame_bytes("frame: the read-only mapping", (uint8_t *)r, 0, size);
			expect_ret("frame: protect the read-only mapping writable",
				   sys_mem_protect((void *)r, size, RW), -EACCES);
			unmap("frame: unmap the read-only mapping", (void *)r, FRAME_PAGES);
		}
		expect_ret("frame: delete the read-only copy", sys_cap_delete((int)ro), 0);
	}
	unmap("frame: unmap the mapping", m, FRAME_PAGES);
	expect_ret("frame: delete", sys_cap_delete((int)slot), 0);
}

/* The data segment's pages are the image's until written; each first write costs a frame. */
static void check_data_cow(void)
{
	const size_t words = DATA_PAGES * WORDS_PER_PAGE;

	for (size_t i = 0; i < words; i++) {
		if (data[i] != DATA_FILL) {
			FAIL("data: word %zu is 0x%llx before any write, want 0x%llx", i,
			     (unsigned long long)data[i], DATA_FILL);
			return;
		}
	}
	uint64_t before = frames_charged();
	for (size_t p = 0; p < DATA_PAGES; p++) {
		size_t i = p * WORDS_PER_PAGE + p % WORDS_PER_PAGE;
		data[i] = pattern(&data[i], 8);
	}
	uint64_t after = frames_charged();
	if (taken(before, after) < DATA_PAGES) {
		FAIL("data: first writes to %d pages of initialized data took only %lld frames",
		     DATA_PAGES, taken(before, after));
	}
	for (size_t i = 0; i < words; i++) {
		size_t p = i / WORDS_PER_PAGE;
		uint64_t want =
		    i == p * WORDS_PER_PAGE + p % WORDS_PER_PAGE ? pattern(&data[i], 8) : DATA_FILL;
		if (data[i] != want) {
			FAIL("data: word %zu is 0x%llx after the copy, want 0x%llx", i,
			     (unsigned long long)data[i], (unsigned long long)want);
			return;
		}
	}
}

/* memtest hold [dirty]: keeps the data segment as it is (or written) until killed. */
static __attribute__((noreturn)) void hold(int dirty)
{
	if (dirty) {
		for (size_t p = 0; p < DATA_PAGES; p++) {
			data[p * WORDS_PER_PAGE] = ~DATA_FILL;
		}
	}
	printf("memtest: holding %d data pages, %s (pid %ld)\n", DATA_PAGES,
	       dirty ? "written" : "shared", sys_getpid());
	fflush(stdout);
	for (;;) {
		sys_sleep_ns(NS_PER_SECOND);
	}
}

/* The page faults the kernel counted for this process so far (its ps record). */
static uint64_t own_page_faults(void)
{
	return own_record().page_faults;
}

/* The line that says all went well, with the page faults counted so far; its length. */
static size_t report(char *line, size_t size)
{
	int n = snprintf(line, size,
			 "memtest: ok (anon %d pages, protect %d, cow copy %d, frame %d, data %d "
			 "copied on write; %llu page faults)\n",
			 ANON_PAGES, PROTECT_PAGES, COW_PAGES, FRAME_PAGES, DATA_PAGES,
			 (unsigned long long)own_page_faults());
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "hold") &&
	    (argc == 2 || (argc == 3 && !strcmp(argv[2], "dirty")))) {
		hold(argc == 3);
	}
	if (argc != 1) {
		printf("usage: memtest [hold [dirty]]\n");
		return 2;
	}
	/* The ps records' pages are faulted in here, not inside the first check's counts. */
	own_record();
	check_anon();
	check_protect();
	check_cow_copy();
	check_frame();
	check_data_cow();
	if (failures) {
		printf("memtest: %d checks failed\n", failures);
		return 1;
	}
	/*
	 * The count is taken last: every page the report touches (its code, its
	 * buffer, the ps records) is touched once before, by a report not sent,
	 * so the one sent counts every fault memtest takes.
	 */
	char line[REPORT_MAX];
	report(line, sizeof(line));
	sys_console_write(CAP_SLOT_CONSOLE, line, 0);
	sys_console_write(CAP_SLOT_CONSOLE, line, report(line, sizeof(line)));
	return 0;
}
