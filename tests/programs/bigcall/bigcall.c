/*
 * bigcall: each system call a plain program can make whose work grows
 * with its arguments, made with the largest arguments such a program can
 * give, for the lockup detector's test (tests/system/test_bounded_calls.py):
 * none may keep its CPU from the scheduler long enough for a report.
 * Run it with a memory limit (run -m 64M bigcall): the calls that take
 * memory go as far as that limit lets them. It says, for each call,
 *
 *   bigcall: CALL: RESULT
 *
 * (RESULT a count, "ok" or the error's text), then
 *
 *   bigcall: done
 *
 * and exits with REGIONS regions still mapped, one a page, so that its
 * teardown is the largest it can make too.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace.h"

#define GIB	      (1024ull * 1024 * 1024)
#define CONSOLE_BYTES (3 * GIB) /* of untouched memory: only the zero page behind it */
#define FRAME_MAX     GIB	/* frame sizes are tried from here down to what is allowed */
#define REGIONS	      65536	/* one-page regions: a record each in the kernel's heap */
#define NAME_SIZE     64
#define READ_WAIT_NS  1000000ull

static void say(const char *call, long result)
{
	if (result < 0) {
		printf("bigcall: %s: %s\n", call, strerror((int)-result));
	} else {
		printf("bigcall: %s: %ld\n", call, result);
	}
}

/* An anonymous region of len bytes with prot, or NULL (said). */
static uint8_t *map(const char *call, uint64_t len, uint32_t prot)
{
	long at = sys_mem_map_anon(NULL, len, prot);

	if (at < 0) {
		say(call, at);
		return NULL;
	}
	return (uint8_t *)at;
}

/* console_write of gigabytes nobody touched: the copy reads the zero page throughout. */
static void console(void)
{
	uint8_t *p = map("console_write", CONSOLE_BYTES, PROT_READ);

	if (p) {
		say("console_write", sys_console_write(CAP_SLOT_CONSOLE, p, CONSOLE_BYTES));
		sys_mem_unmap(p, CONSOLE_BYTES);
	}
}

/* The largest frame object there is, filled from and read back into user memory. */
static void frames(void)
{
	uint64_t size = FRAME_MAX;
	long slot;

	while ((slot = sys_frame_create(size)) == -EINVAL && size > PAGE_SIZE_USER) {
		size /= 2;
	}
	say("frame_create", slot < 0 ? slot : (long)size);
	uint8_t *buf = slot < 0 ? NULL : map("frame_read", size, PROT_READ | PROT_WRITE);
	if (buf) {
		say("frame_write", sys_frame_write((int)slot, 0, buf, size));
		say("frame_read", sys_frame_read((int)slot, 0, buf, size));
		long at = sys_mem_map_frame((int)slot, NULL, PROT_READ);
		say("mem_map_frame", at < 0 ? at : 0);
		sys_mem_unmap((void *)at, size);
		sys_mem_unmap(buf, size);
	}
	if (slot >= 0) {
		sys_cap_delete((int)slot);
	}
}

/*
 * The largest anonymous region whose copy-on-write copy fits beside it,
 * committed as far as the limit lets it, protected, copied and unmapped
 * whole.
 */
static void huge(void)
{
	uint64_t len = (USER_MAP_END - USER_MAP_BASE) / 2 / PAGE_SIZE_USER * PAGE_SIZE_USER;
	uint8_t *p = map("mem_map_anon", len, PROT_READ | PROT_WRITE);

	if (!p) {
		return;
	}
	say("mem_map_anon", 0);
	say("mem_commit", sys_mem_commit(p, len));
	say("mem_protect", sys_mem_protect(p, len, PROT_READ));
	say("mem_protect", sys_mem_protect(p, len, PROT_READ | PROT_WRITE));
	long copy = sys_mem_cow_copy(p, len);
	say("mem_cow_copy", copy < 0 ? copy : 0);
	if (copy >= 0) {
		say("mem_unmap", sys_mem_unmap((void *)copy, len));
	}
	say("mem_unmap", sys_mem_unmap(p, len));
}

/* Calls whose lists the kernel bounds itself, asked for as much as they can give. */
static void lists(void)
{
	static struct thread_info threads[PROC_THREADS_MAX * 4];
	static struct program_info programs[256];
	static char name[NAME_SIZE];
	char in[1];

	say("thread_list", sys_thread_list(threads, sizeof(threads) / sizeof(threads[0])));
	say("program_list", sys_program_list(programs, sizeof(programs) / sizeof(programs[0])));
	say("trace_test", sys_trace_test(TTRACE_TEST_MAX));
	say("console_read", sys_console_read(CAP_SLOT_CONSOLE, in, sizeof(in), READ_WAIT_NS));
	say("ksym", sys_ksym((uint64_t)-1, name, sizeof(name)));
}

/*
 * REGIONS one-page regions side by side, mapped from the top down (each
 * new one is the lowest, so the kernel finds its place at once), then
 * protected as one range, which walks every region.
 */
static void regions(void)
{
	uint8_t *base = map("regions", (uint64_t)REGIONS * PAGE_SIZE_USER, PROT_NONE);
	long err = base ? sys_mem_unmap(base, (uint64_t)REGIONS * PAGE_SIZE_USER) : -ENOMEM;

	for (long i = REGIONS - 1; !err && i >= 0; i--) {
		long at = sys_mem_map_anon(base + i * PAGE_SIZE_USER, PAGE_SIZE_USER, PROT_NONE);
		err = at < 0 ? at : 0;
	}
	say("regions", err ? err : REGIONS);
	say("mem_protect", sys_mem_protect(base, (uint64_t)REGIONS * PAGE_SIZE_USER, PROT_READ));
}

int main(void)
{
	console();
	frames();
	huge();
	lists();
	regions();
	printf("bigcall: done\n");
	return 0;
}
