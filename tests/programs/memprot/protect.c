/*
 * memprot's protection cases: PROT_NONE pages and frame capabilities'
 * rights, as user accesses and the kernel's copies meet them.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "memprot.h"

#define SENTINEL      0x5e4715e4715e4715ull
#define RESTORE_PAGES 4
#define KERNEL_BYTES  16
#define READER_CPU    1
#define MAIN_CPU      0

/* "ok" for a result >= 0, else the error's text. */
static const char *said(long r)
{
	return r < 0 ? strerror((int)-r) : "ok";
}

/*
 * Says which address it reads, then reads it: the kernel should kill the
 * program here. If it does not, says so and returns 1.
 */
static int read_and_die(const char *c, const volatile uint64_t *p)
{
	printf("memprot: %s: reading 0x%llx\n", c, (unsigned long long)(uintptr_t)p);
	fflush(stdout);
	OPAQUE(p);
	uint64_t v = *p;
	printf("memprot: %s FAIL: read 0x%llx from a page that allows no access\n", c,
	       (unsigned long long)v);
	return 1;
}

/* A page written, then PROT_NONE; NULL after saying why if any of it failed. */
static volatile uint64_t *none_page(const char *c)
{
	uint64_t *p = map_anon(c, 1, PROT_READ | PROT_WRITE);

	if (!p) {
		return NULL;
	}
	p[0] = SENTINEL;
	long err = sys_mem_protect(p, PAGE, PROT_NONE);
	if (err) {
		printf("memprot: %s FAIL: mem_protect PROT_NONE: %s\n", c, said(err));
		return NULL;
	}
	return p;
}

int none_read(const char *arg)
{
	(void)arg;
	const volatile uint64_t *p = none_page("none-read");

	return p ? read_and_die("none-read", p) : 1;
}

static const volatile uint64_t *cpus_page;
static int reader_warm; /* [a] the reader has read the page on its CPU */
static int reader_go;	/* [a] the page is PROT_NONE now: read it once more */

/* Keeps the page's translation in its CPU's TLB until told to read it once more. */
static int reader(void *arg)
{
	const volatile uint64_t *p = cpus_page;
	uint64_t sum = 0;

	(void)arg;
	if (sys_thread_set_cpu(READER_CPU)) {
		printf("memprot: none-cpus FAIL: cannot run on cpu %d\n", READER_CPU);
		return 1;
	}
	sum += *p;
	/* release: pairs with main's acquire, which then knows the TLB entry is there */
	__atomic_store_n(&reader_warm, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&reader_go, __ATOMIC_ACQUIRE)) {
		sum += *p;
	}
	sum += *p;
	printf("memprot: none-cpus FAIL: cpu %d still read the page after PROT_NONE (sum 0x%llx)\n",
	       READER_CPU, (unsigned long long)sum);
	return 1;
}

int none_cpus(const char *arg)
{
	(void)arg;
	uint64_t *p = map_anon("none-cpus", 1, PROT_READ | PROT_WRITE);

	if (!p || sys_thread_set_cpu(MAIN_CPU)) {
		return 1;
	}
	p[0] = SENTINEL;
	cpus_page = p;
	int tid = thread_spawn(reader, NULL, 0);
	if (tid < 0) {
		printf("memprot: none-cpus FAIL: thread_spawn: %s\n", said(tid));
		return 1;
	}
	while (!__atomic_load_n(&reader_warm, __ATOMIC_ACQUIRE)) {
		sys_yield();
	}
	printf("memprot: none-cpus: cpu %d reads 0x%llx; making it PROT_NONE on cpu %d\n",
	       READER_CPU, (unsigned long long)(uintptr_t)p, MAIN_CPU);
	fflush(stdout);
	long err = sys_mem_protect(p, PAGE, PROT_NONE);
	/* release: the reader's last read comes after the protect */
	__atomic_store_n(&reader_go, 1, __ATOMIC_RELEASE);
	int64_t status = 0;
	thread_join(tid, &status);
	printf("memprot: none-cpus FAIL: the reader ended (status %lld, protect: %s)\n",
	       (long long)status, said(err));
	return 1;
}

int none_kernel(const char *arg)
{
	(void)arg;
	/* The page holds zeros but for a word: what the console prints on a wrong read is short. */
	volatile uint64_t *p = none_page("none-kernel");

	if (!p) {
		return 1;
	}
	long wrote = sys_console_write(CAP_SLOT_CONSOLE, (const void *)(p + 1), KERNEL_BYTES);
	long info = sys_sys_info((struct sys_info *)(uintptr_t)p);
	printf("memprot: none-kernel: console_write from it: %s; sys_info into it: %s\n",
	       said(wrote), said(info));
	return wrote == -EFAULT && info == -EFAULT ? 0 : 1;
}

int none_restore(const char *arg)
{
	(void)arg;
	uint64_t *p = map_anon("none-restore", RESTORE_PAGES, PROT_READ | PROT_WRITE);

	if (!p) {
		return 1;
	}
	for (size_t i = 0; i < RESTORE_PAGES * WORDS_PER_PAGE; i++) {
		p[i] = SENTINEL ^ i;
	}
	long none = sys_mem_protect(p, RESTORE_PAGES * PAGE, PROT_NONE);
	long ro = sys_mem_protect(p, RESTORE_PAGES * PAGE, PROT_READ);
	if (none || ro) {
		printf("memprot: none-restore FAIL: PROT_NONE: %s, then PROT_READ: %s\n",
		       said(none), said(ro));
		return 1;
	}
	for (size_t i = 0; i < RESTORE_PAGES * WORDS_PER_PAGE; i++) {
		if (p[i] != (SENTINEL ^ i)) {
			printf("memprot: none-restore FAIL: word %zu is 0x%llx after PROT_NONE "
			       "and back\n",
			       i, (unsigned long long)p[i]);
			return 1;
		}
	}
	long rw = sys_mem_protect(p, RESTORE_PAGES * PAGE, PROT_READ | PROT_WRITE);
	p[0] = ~SENTINEL;
	printf("memprot: none-restore ok (%d pages kept their data; read-write again: %s)\n",
	       RESTORE_PAGES, said(rw));
	return sys_mem_unmap(p, RESTORE_PAGES * PAGE) ? 1 : 0;
}

struct named {
	const char *name;
	uint32_t bits;
};

static const struct named rights_sets[] = {
    {"-", 0},
    {"r", CAP_RIGHT_READ},
    {"w", CAP_RIGHT_WRITE},
    {"rw", CAP_RIGHT_READ | CAP_RIGHT_WRITE},
};

static const struct named prots[] = {
    {"none", PROT_NONE},
    {"r", PROT_READ},
    {"w", PROT_WRITE},
    {"rw", PROT_READ | PROT_WRITE},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A one-page frame object with a byte written in it; its slot, or -1 after saying why. */
static int frame_with_data(const char *c)
{
	static const uint8_t byte = 0xa5;
	long slot = sys_frame_create(PAGE);

	if (slot < 0 || sys_frame_write((int)slot, 0, &byte, 1)) {
		printf("memprot: %s FAIL: a frame object: %s\n", c, said(slot));
		return -1;
	}
	return (int)slot;
}

int frame_rights(const char *arg)
{
	(void)arg;
	int frame = frame_with_data("frame-rights");

	if (frame < 0) {
		return 1;
	}
	for (size_t r = 0; r < COUNT(rights_sets); r++) {
		long slot = sys_cap_copy(frame, rights_sets[r].bits);
		if (slot < 0) {
			printf("memprot: frame-rights FAIL: cap_copy rights=%s: %s\n",
			       rights_sets[r].name, said(slot));
			return 1;
		}
		for (size_t i = 0; i < COUNT(prots); i++) {
			long addr = sys_mem_map_frame((int)slot, NULL, prots[i].bits);
			printf("memprot: map rights=%s prot=%s: %s\n", rights_sets[r].name,
			       prots[i].name, said(addr));
			if (addr >= 0) {
				sys_mem_unmap((void *)addr, PAGE);
			}
		}
		sys_cap_delete((int)slot);
	}
	sys_cap_delete(frame);
	printf("memprot: frame-rights done\n");
	return 0;
}

int frame_none(const char *arg)
{
	(void)arg;
	int frame = frame_with_data("frame-none");

	if (frame < 0) {
		return 1;
	}
	long addr = sys_mem_map_frame(frame, NULL, PROT_NONE);
	if (addr < 0) {
		printf("memprot: frame-none FAIL: mem_map_frame PROT_NONE: %s\n", said(addr));
		return 1;
	}
	return read_and_die("frame-none", (const volatile uint64_t *)addr);
}
