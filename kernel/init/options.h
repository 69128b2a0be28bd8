/*
 * options: the kernel command-line options, typed. Parsed once at boot;
 * read-only afterwards.
 *
 *   smp=N          start at most N CPUs (1..8; default: all the MADT lists)
 *   selftest=KIND  after boot, run one self-test: pagefault, gpf, divide
 *                  and ud raise that exception in the kernel (a panic
 *                  block), doublefault faults with a broken stack (the
 *                  IST stack catches it); tlb checks cross-CPU TLB
 *                  shootdown, heap checks kmalloc/kfree
 */
#ifndef SPOOR_INIT_OPTIONS_H
#define SPOOR_INIT_OPTIONS_H

#include <stdint.h>

enum selftest_kind {
	SELFTEST_NONE,
	SELFTEST_PAGEFAULT,
	SELFTEST_GPF,
	SELFTEST_DIVIDE,
	SELFTEST_UD,
	SELFTEST_DOUBLE_FAULT,
	SELFTEST_TLB,
	SELFTEST_HEAP,
};

struct kernel_options {
	uint64_t smp;
	uint32_t selftest; /* enum selftest_kind */
};

extern struct kernel_options kopts;

/* Parses the command line into kopts, printing one warning per bad word. */
void options_parse(const char *cmdline);

#endif
