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
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "mm/vmm.h"
#include "trace/bench.h"
#include "trace/nest_test.h"
#include "trace/probe_test.h"
#include "trace/stop_test.h"
#include "trace/wedge_test.h"

#define SELFTEST_FAULT_ADDR   0xdead0000ul /* unmapped in the kernel's tables */
#define SELFTEST_NONCANONICAL 0x8000000000000000ul
#define SELFTEST_TLB_VA	      0xffffc00000000000ul /* a kernel-half slot nothing uses */
#define PATTERN_OLD	      0x01d01d01d01d01d0ul
#define PATTERN_NEW	      0x0e110e110e110e11ul
#define HEAP_BLOCKS	      64
#define HEAP_ROUNDS	      4
#define HEAP_MAX_SIZE	      9000 /* beyond the largest size class: whole frames */

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

/* Sizes from 1 byte to several frames, different in every round. */
static size_t heap_size(unsigned i, unsigned round)
{
	return (i * 977 + round * 131) % HEAP_MAX_SIZE + 1;
}

/*
 * Fills blocks of many sizes with their index, checks every byte, frees
 * them. After every round the free frame count must be what it was before
 * the first: a slab goes back to the frame allocator with its last block,
 * a large block with itself.
 */
static void selftest_heap(void)
{
	uint8_t *blocks[HEAP_BLOCKS];
	uint64_t before = pmm_free_count();

	for (unsigned round = 0; round < HEAP_ROUNDS; round++) {
		for (unsigned i = 0; i < HEAP_BLOCKS; i++) {
			blocks[i] = kmalloc(heap_size(i, round));
			if (!blocks[i] || (uintptr_t)blocks[i] % 16) {
				panic("selftest heap: kmalloc(%zu) gave %p", heap_size(i, round),
				      blocks[i]);
			}
			memset(blocks[i], (int)i, heap_size(i, round));
		}
		for (unsigned i = 0; i < HEAP_BLOCKS; i++) {
			for (size_t b = 0; b < heap_size(i, round); b++) {
				if (blocks[i][b] != (uint8_t)i) {
					panic("selftest heap: block %u overwritten at byte %zu", i,
					      b);
				}
			}
			kfree(blocks[i]);
		}
		if (pmm_free_count() != before) {
			panic("selftest heap: %lu frames free after round %u, %lu before",
			      pmm_free_count(), round, before);
		}
	}
	printk("selftest heap: ok (%u blocks x %u rounds)\n", HEAP_BLOCKS, HEAP_ROUNDS);
}

static void selftest_pagefault(void)
{
	printk("selftest: reading 0x%lx\n", SELFTEST_FAULT_ADDR);
	(void)*(volatile uint64_t *)SELFTEST_FAULT_ADDR;
}

static void selftest_gpf(void)
{
	printk("selftest: reading non-canonical 0x%lx\n", SELFTEST_NONCANONICAL);
	(void)*(volatile uint64_t *)SELFTEST_NONCANONICAL;
}

static void selftest_divide(void)
{
	uint64_t zero = 0, low = 1, high = 0;

	printk("selftest: dividing by zero\n");
	__asm__ volatile("divq %2" : "+a"(low), "+d"(high) : "r"(zero));
}

static void selftest_ud(void)
{
	printk("selftest: executing ud2\n");
	__asm__ volatile("ud2");
}

/* The #UD cannot be delivered on an unmapped stack; the #DF runs on IST1. */
static void selftest_double_fault(void)
{
	printk("selftest: faulting with rsp at 0x%lx\n", SELFTEST_FAULT_ADDR);
	__asm__ volatile("movq %0, %%rsp; ud2" : : "r"(SELFTEST_FAULT_ADDR));
}

/* The boot CPU's steps through a tracepoint, then a second CPU's, stopped at each. */
static void selftest_tracenest(void)
{
	ttrace_nest_test();
	ttrace_stop_test();
}

static void (*const selftests[SELFTEST_LIMIT])(void) = {
    [SELFTEST_PAGEFAULT] = selftest_pagefault,
    [SELFTEST_GPF] = selftest_gpf,
    [SELFTEST_DIVIDE] = selftest_divide,
    [SELFTEST_UD] = selftest_ud,
    [SELFTEST_DOUBLE_FAULT] = selftest_double_fault,
    [SELFTEST_TLB] = selftest_tlb,
    [SELFTEST_HEAP] = selftest_heap,
    [SELFTEST_DEADLOCK] = selftest_deadlock,
    [SELFTEST_TRACEBENCH] = ttrace_bench,
    [SELFTEST_TRACENEST] = selftest_tracenest,
    [SELFTEST_TRACEWEDGE] = ttrace_wedge_test,
    [SELFTEST_PROBESTALE] = probe_stale_test,
    [SELFTEST_NMIGS] = selftest_nmigs,
    [SELFTEST_MASKED] = selftest_masked,
};

void selftest_run(uint32_t kind)
{
	if (kind < SELFTEST_LIMIT && selftests[kind]) {
		selftests[kind]();
	}
}

void selftest_run_ap(uint32_t kind)
{
	if (kind == SELFTEST_TRACENEST) {
		ttrace_stop_test_ap();
	} else if (kind == SELFTEST_DEADLOCK) {
		selftest_deadlock_ap();
	} else if (kind == SELFTEST_MASKED) {
		selftest_masked_ap();
	}
}
