/*
 * memprot CASE [ARG]: memory protection as the page tables enforce it,
 * and reads of untouched memory that cost no frames (issue 14, items 1
 * and 4). Each case prints the lines tests/system/test_memprot.py checks,
 * and "memprot: CASE FAIL: ..." for a check that did not hold (exit
 * status 1).
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
 *   zero-console MIB console_write of an untouched read-only region of
 *                    MIB MiB: what it returned, free frames before, after.
 *   zero-cpu MIB     every page of such a region read by the CPU: zeros;
 *                    free frames before and after.
 *   zero-cow THREADS THREADS threads (one a CPU, in turn) read every page
 *                    of an untouched region, then each writes its own word
 *                    of every page: all see zeros, then their own data;
 *                    then the kernel writes a page read before (sys_info).
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
    {"zero-console", zero_console, 1}, {"zero-cpu", zero_cpu, 1},
    {"zero-cow", zero_cow, 1},
};

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc == 2 + cases[i].takes_arg && !strcmp(argv[1], cases[i].name)) {
			return cases[i].run(cases[i].takes_arg ? argv[2] : NULL);
		}
	}
	printf("usage: memprot none-read | none-cpus | none-kernel | none-restore | "
	       "frame-rights | frame-none | zero-console MIB | zero-cpu MIB | zero-cow THREADS\n");
	return 2;
}
