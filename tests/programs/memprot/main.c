/*
 * memprot CASE: memory protection as the page tables enforce it (issue
 * 14, item 1). Each case prints the lines tests/system/test_memprot.py
 * checks, and "memprot: CASE FAIL: ..." for a check that did not hold
 * (exit status 1).
 *
 *   none-read        a page written, made PROT_NONE and read: the kernel
 *                    kills the program ("memprot: none-read: reading A").
 *   none-cpus        the same, the page read on CPU 1 right up to the
 *                    protect made on CPU 0, whose TLB entry must go too.
 *   none-kernel      console_write from a PROT_NONE page: -EFAULT.
 *   none-restore     PROT_NONE then PROT_READ: the data is still there.
 *   frame-rights     a frame capability of each set of rights mapped with
 *                    each prot: one line each, "ok" or the error's text.
 *   frame-none       a frame mapped PROT_NONE, then read: killed.
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "memprot.h"

struct memprot_case {
	const char *name;
	int (*run)(const char *arg);
	int takes_arg;
};

static const struct memprot_case cases[] = {
    {"none-read", none_read, 0},       {"none-cpus", none_cpus, 0},
    {"none-kernel", none_kernel, 0},   {"none-restore", none_restore, 0},
    {"frame-rights", frame_rights, 0}, {"frame-none", frame_none, 0},
};

uint64_t *map_anon(const char *c, uint64_t pages, uint32_t prot)
{
	long addr = sys_mem_map_anon(NULL, pages * PAGE, prot);

	if (addr < 0) {
		printf("memprot: %s FAIL: mem_map_anon of %llu pages: %s\n", c,
		       (unsigned long long)pages, strerror((int)-addr));
		return NULL;
	}
	return (uint64_t *)addr;
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc == 2 + cases[i].takes_arg && !strcmp(argv[1], cases[i].name)) {
			return cases[i].run(cases[i].takes_arg ? argv[2] : NULL);
		}
	}
	printf("usage: memprot none-read | none-cpus | none-kernel | none-restore | "
	       "frame-rights | frame-none\n");
	return 2;
}
