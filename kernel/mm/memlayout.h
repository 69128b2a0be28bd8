/*
 * memlayout: where things live in the virtual address space (DESIGN.md).
 *
 *   0x0000000000000000 .. 0x00007fffffffffff  user space
 *   0xffff800000000000 ..                     all physical memory, direct map
 *   0xffffffff80000000 ..                     the kernel image (-mcmodel=kernel)
 *
 * Included from assembly too, so only macros outside __ASSEMBLER__.
 */
#ifndef SPOOR_MM_MEMLAYOUT_H
#define SPOOR_MM_MEMLAYOUT_H

#define KERNEL_VMA	0xffffffff80000000
#define DIRECT_MAP_BASE 0xffff800000000000
#define USER_TOP	0x0000800000000000
#define PAGE_SIZE	4096
#define PAGE_SHIFT	12

/* The boot page tables map this much physical memory before paging_init(). */
#define EARLY_MAP_LIMIT 0x40000000

#ifndef __ASSEMBLER__
#include <stdint.h>

#define PAGE_ALIGN_DOWN(x) ((x) & ~(uint64_t)(PAGE_SIZE - 1))
#define PAGE_ALIGN_UP(x)   (((x) + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1))

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(pa + DIRECT_MAP_BASE);
}

/* Physical address of a direct-map or kernel-image pointer. */
static inline uint64_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	return v >= KERNEL_VMA ? v - KERNEL_VMA : v - DIRECT_MAP_BASE;
}

/* Linker-script symbols bounding the image (kernel/arch/x86_64/kernel.ld). */
extern char _kernel_start[], _text_end[], _rodata_end[], _kernel_end[];
#endif

#endif
