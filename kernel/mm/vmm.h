/*
 * vmm: address spaces and the page-mapping API (4 KiB pages).
 *
 * The kernel half is shared: every address space's top-level entries for
 * it point to the same lower tables, created once by vmm_init() and never
 * replaced, so a kernel mapping made in one space is seen in all.
 *
 * Changes that take rights away (unmap, protect) invalidate the TLB on
 * every CPU before they return; they must then be called with interrupts
 * enabled and no spinlock held (see smp_call_others), except while only
 * the boot CPU runs.
 */
#ifndef SPOOR_MM_VMM_H
#define SPOOR_MM_VMM_H

#include <stdint.h>

#include "lib/spinlock.h"

#define VM_WRITE   (1u << 0)
#define VM_EXEC	   (1u << 1)
#define VM_USER	   (1u << 2)
#define VM_NOCACHE (1u << 3)
/* No access at all (PROT_NONE): the page keeps its frame but is not present to the CPU. */
#define VM_NOACCESS (1u << 4)

struct mem_account;

struct addr_space {
	uint64_t pml4_phys;	  /* [I] */
	struct spinlock lock;	  /* guards the page tables below the top level */
	struct mem_account *acct; /* [I] pays for its page tables (account.h); NULL: the kernel */
};

extern struct addr_space kernel_space;

/*
 * Boot CPU, once: builds the kernel page tables (direct map of physical
 * memory, the image with W^X sections) and switches to them.
 */
void vmm_init(void);

/* Loads the kernel page tables on the calling CPU (boot: before its per-CPU data is set up). */
void vmm_activate_kernel(void);

/* Leaves any user space: the calling CPU loads the kernel page tables, and says so. */
void vmm_deactivate(void);

/* Loads as on the calling CPU, unless it is loaded already. */
void vmm_activate(struct addr_space *as);

/*
 * A new user address space sharing the kernel half, its tables charged to
 * as->acct (set by the caller). 0 or -ENOMEM.
 */
int vmm_space_init(struct addr_space *as);

/*
 * Takes the user half apart, handing release(ctx, pa) each frame it holds
 * a reference to: every mapped frame, and every page table once its
 * entries have been read, the top one last (a table's only reference:
 * pmm_frame_unref() frees it). So the caller may let go of them a batch
 * at a time (free_batch.h). The space must not be loaded on any CPU.
 */
void vmm_space_destroy(struct addr_space *as, void (*release)(void *ctx, uint64_t pa), void *ctx);

/*
 * Maps npages pages at va to physical pa onwards. va and pa must be page
 * aligned and va in the half VM_USER names. Returns 0, -EINVAL, -EEXIST
 * when any page is already mapped, or -ENOMEM; on error nothing is mapped.
 */
int vmm_map(struct addr_space *as, uintptr_t va, uint64_t pa, uint64_t npages, unsigned flags);

/* Unmaps npages pages from va; pages that are not mapped are skipped. 0 or -EINVAL. */
int vmm_unmap(struct addr_space *as, uintptr_t va, uint64_t npages);

/*
 * Sets the rights of the mapped pages among npages from va (VM_NOACCESS
 * pages included: they keep their frames either way). 0 or -EINVAL.
 */
int vmm_protect(struct addr_space *as, uintptr_t va, uint64_t npages, unsigned flags);

/*
 * The first address at or after va, below end, that a last-level page
 * table covers (end if none): lets a walk skip what was never mapped.
 */
uintptr_t vmm_next_table(struct addr_space *as, uintptr_t va, uintptr_t end);

/*
 * Finds what va maps to, a VM_NOACCESS page's kept frame too (flags then
 * VM_NOACCESS alone). 0 or -ENOENT.
 */
int vmm_lookup(struct addr_space *as, uintptr_t va, uint64_t *pa, unsigned *flags);

#endif
