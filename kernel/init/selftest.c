/*
 * selftest: the exception kinds fault on purpose at recognisable addresses
 * so a test can check the panic block; the tlb kind proves that an unmap
 * on one CPU reaches the TLBs of the others.
 */
#include "init/selftest.h"

#include <stddef.h>

#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "init/options.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "mm/vmm.h"

#define SELFTEST_FAULT_ADDR   0xdead0000ul /* unmapped in the kernel's tables */
#define SELFTEST_NONCANONICAL 0x8000000000000000ul
#define SELFTEST_TLB_VA	      0xffffc00000000000ul /* a kernel-half slot nothing uses */
#define PATTERN_OLD	      0x01d01d01d01d01d0ul
#define PATTERN_NEW	      0x0e110e110e110e11ul

static uint64_t seen[MAX_CPUS];

static void probe(void *arg)
{
	(void)arg;
	seen[this_cpu()->id] = *(volatile uint64_t *)SELFTEST_TLB_VA;
}

static void expect_all(uint64_t pattern, const char *when)
{
	probe(NULL);
	smp_call_others(probe, NULL);
	for (uint32_t i = 0; i < ncpus; i++) {
		if (seen[i] != pattern) {
			panic("selftest tlb: cpu %u read 0x%lx %s (expected 0x%lx)", i, seen[i],
			      when, pattern);
		}
	}
}

static void selftest_tlb(void)
{
	uint64_t old_frame, new_frame;

	if (pmm_alloc_frames(1, &old_frame) || pmm_alloc_frames(1, &new_frame)) {
		panic("selftest tlb: out of memory");
	}
	*(uint64_t *)phys_to_virt(old_frame) = PATTERN_OLD;
	*(uint64_t *)phys_to_virt(new_frame) = PATTERN_NEW;

	/* Every CPU caches the old translation, then the mapping moves. */
	KASSERT(!vmm_map(&kernel_space, SELFTEST_TLB_VA, old_frame, 1, VM_WRITE));
	expect_all(PATTERN_OLD, "before the remap");
	KASSERT(!vmm_unmap(&kernel_space, SELFTEST_TLB_VA, 1));
	KASSERT(!vmm_map(&kernel_space, SELFTEST_TLB_VA, new_frame, 1, VM_WRITE));
	expect_all(PATTERN_NEW, "after the remap (stale TLB entry)");

	KASSERT(!vmm_unmap(&kernel_space, SELFTEST_TLB_VA, 1));
	pmm_free_frames(old_frame, 1);
	pmm_free_frames(new_frame, 1);
	printk("selftest tlb: ok on %u cpus\n", ncpus);
}

void selftest_run(uint32_t kind)
{
	switch (kind) {
	case SELFTEST_PAGEFAULT:
		printk("selftest: reading 0x%lx\n", SELFTEST_FAULT_ADDR);
		(void)*(volatile uint64_t *)SELFTEST_FAULT_ADDR;
		break;
	case SELFTEST_GPF:
		printk("selftest: reading non-canonical 0x%lx\n", SELFTEST_NONCANONICAL);
		(void)*(volatile uint64_t *)SELFTEST_NONCANONICAL;
		break;
	case SELFTEST_DIVIDE: {
		printk("selftest: dividing by zero\n");
		uint64_t zero = 0, low = 1, high = 0;
		__asm__ volatile("divq %2" : "+a"(low), "+d"(high) : "r"(zero));
		break;
	}
	case SELFTEST_UD:
		printk("selftest: executing ud2\n");
		__asm__ volatile("ud2");
		break;
	case SELFTEST_TLB:
		selftest_tlb();
		break;
	default:
		break;
	}
}
