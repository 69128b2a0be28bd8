/*
 * paging: x86_64 4-level page tables behind the vmm API (SDM 3A 4.5).
 *
 * Lower tables are reached through the direct map. The direct map itself
 * uses 2 MiB pages, cached for RAM and uncached for the 2 MiB pages that
 * hold no RAM (where the APICs live); vmm_map refuses to split them.
 *
 * A VM_NOACCESS page keeps its frame in a last-level entry that is not
 * present: the CPU ignores every other bit of such an entry (SDM 3A
 * 4.5.4), so the frame's address stays there, marked PTE_KEPT, for
 * vmm_lookup, vmm_protect, unmapping and freeing to find.
 */
#include "mm/vmm.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "init/boot_info.h"
#include "lib/panic.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

#define PTE_P	 (1ull << 0)
#define PTE_W	 (1ull << 1)
#define PTE_U	 (1ull << 2)
#define PTE_PWT	 (1ull << 3)
#define PTE_PCD	 (1ull << 4)
#define PTE_PS	 (1ull << 7)
#define PTE_KEPT (1ull << 9) /* software (SDM 3A 4.5.4): a VM_NOACCESS frame, not present */
#define PTE_NX	 (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

#define LEVELS		      4
#define ENTRIES		      512
#define KERNEL_HALF_FIRST     256
#define LARGE_PAGE	      (2ull << 20)
#define GIB		      (1ull << 30)
#define FULL_FLUSH_PAGES      32 /* beyond this, reloading CR3 is cheaper than invlpg */
#define BOOT_MEM_ACPI_RECLAIM 3
#define BOOT_MEM_ACPI_NVS     4

struct addr_space kernel_space = {.lock = SPINLOCK_INIT};

static uint64_t *table_of(uint64_t entry)
{
	return phys_to_virt(entry & PTE_ADDR);
}

static unsigned index_at(uintptr_t va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * level)) & (ENTRIES - 1);
}

/* A zeroed page table, charged to as's account; 0 when there is none to be had. */
static uint64_t alloc_table(struct addr_space *as)
{
	uint64_t pa;

	if (pmm_alloc_charged(as->acct, 1, &pa)) {
		return 0;
	}
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

/* Does a last-level entry hold a frame, present or kept? */
static bool holds_frame(uint64_t pte)
{
	return pte & (PTE_P | PTE_KEPT);
}

static uint64_t pte_flags(unsigned flags)
{
	uint64_t f = PTE_P;

	if (flags & VM_NOACCESS) {
		return PTE_KEPT; /* not present: every access faults */
	}
	if (flags & VM_WRITE) {
		f |= PTE_W;
	}
	if (!(flags & VM_EXEC)) {
		f |= PTE_NX;
	}
	if (flags & VM_USER) {
		f |= PTE_U;
	}
	if (flags & VM_NOCACHE) {
		f |= PTE_PCD | PTE_PWT;
	}
	return f;
}

static unsigned vm_flags(uint64_t pte)
{
	if (!(pte & PTE_P)) {
		return VM_NOACCESS;
	}
	return (pte & PTE_W ? VM_WRITE : 0) | (pte & PTE_NX ? 0 : VM_EXEC) |
	       (pte & PTE_U ? VM_USER : 0) | (pte & PTE_PCD ? VM_NOCACHE : 0);
}

/*
 * Finds the last-level entry for va. With create, missing tables are
 * allocated. Returns 0, -ENOENT, -ENOMEM, or -EINVAL when a large page
 * covers va. Called with as->lock held (or before other CPUs run).
 */
static int walk(struct addr_space *as, uintptr_t va, bool create, uint64_t **out)
{
	uint64_t *table = phys_to_virt(as->pml4_phys);
	uint64_t link = PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0);

	for (int level = LEVELS - 1; level > 0; level--) {
		uint64_t *e = &table[index_at(va, level)];
		if (!(*e & PTE_P)) {
			if (!create) {
				return -ENOENT;
			}
			uint64_t pa = alloc_table(as);
			if (!pa) {
				return -ENOMEM;
			}
			*e = pa | link;
		} else if (*e & PTE_PS) {
			return -EINVAL;
		}
		table = table_of(*e);
	}
	*out = &table[index_at(va, 0)];
	return 0;
}

static bool range_ok(uintptr_t va, uint64_t npages, unsigned flags)
{
	uint64_t bytes = npages * PAGE_SIZE;

	if (va % PAGE_SIZE || npages == 0 || npages > (USER_TOP >> PAGE_SHIFT)) {
		return false;
	}
	if (flags & VM_USER) {
		return va < USER_TOP && bytes <= USER_TOP - va;
	}
	return va >= DIRECT_MAP_BASE && va + bytes - 1 >= va;
}

static void flush_local(uintptr_t va, uint64_t npages)
{
	if (npages > FULL_FLUSH_PAGES) {
		write_cr3(read_cr3());
		return;
	}
	for (uint64_t i = 0; i < npages; i++) {
		invlpg(va + i * PAGE_SIZE);
	}
}

struct shootdown {
	uint64_t pml4_phys;
	uintptr_t va;
	uint64_t npages;
};

static void shootdown_ipi(void *arg)
{
	const struct shootdown *s = arg;

	/* Without PCIDs a CPU caches only its current space's user entries. */
	if (s->va >= USER_TOP || (read_cr3() & PTE_ADDR) == s->pml4_phys) {
		flush_local(s->va, s->npages);
	}
}

/*
 * Kernel addresses are flushed everywhere. User addresses only on the
 * CPUs that have the space loaded: a CPU without it holds none of its
 * entries (no PCIDs: the CR3 write that took it away flushed them), and
 * one that loads it later walks the cleared entries. The fence makes
 * that so: either this load of a CPU's user_pml4 sees it publish the
 * space, or its walks after the CR3 write see the entries cleared before
 * the fence (pairs with the seq_cst store in publish()). An idle CPU is
 * not woken for a shootdown it has nothing to do for.
 */
static void tlb_shootdown(struct addr_space *as, uintptr_t va, uint64_t npages)
{
	struct shootdown s = {.pml4_phys = as->pml4_phys, .va = va, .npages = npages};
	uint64_t mask = 0;

	flush_local(va, npages);
	if (va >= USER_TOP) {
		smp_call_others(shootdown_ipi, &s);
		return;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < ncpus; i++) {
		/* relaxed: ordered by the fence above */
		if (__atomic_load_n(&cpus[i].user_pml4, __ATOMIC_RELAXED) == as->pml4_phys) {
			mask |= 1ull << i;
		}
	}
	if (mask) {
		smp_call_some(mask, shootdown_ipi, &s);
	}
}

int vmm_map(struct addr_space *as, uintptr_t va, uint64_t pa, uint64_t npages, unsigned flags)
{
	uint64_t *pte;
	uint64_t done = 0;
	int err = 0;

	if (!range_ok(va, npages, flags) || pa % PAGE_SIZE) {
		return -EINVAL;
	}
	uint64_t lock_flags = spin_lock_irqsave(&as->lock);
	for (uint64_t i = 0; i < npages; i++) {
		int r = walk(as, va + i * PAGE_SIZE, false, &pte);
		if (r == -EINVAL || (!r && holds_frame(*pte))) {
			err = r ? r : -EEXIST;
			goto out;
		}
	}
	for (; done < npages; done++) {
		err = walk(as, va + done * PAGE_SIZE, true, &pte);
		if (err) {
			break;
		}
		*pte = (pa + done * PAGE_SIZE) | pte_flags(flags);
	}
	/* Out of memory half-way: take back what was mapped. Never-present
	 * entries were not in any TLB, so no shootdown is needed. */
	while (err && done--) {
		walk(as, va + done * PAGE_SIZE, false, &pte);
		*pte = 0;
	}
out:
	spin_unlock_irqrestore(&as->lock, lock_flags);
	return err;
}

int vmm_unmap(struct addr_space *as, uintptr_t va, uint64_t npages)
{
	uint64_t *pte;
	bool user = va < USER_TOP;

	if (!range_ok(va, npages, user ? VM_USER : 0)) {
		return -EINVAL;
	}
	uint64_t lock_flags = spin_lock_irqsave(&as->lock);
	for (uint64_t i = 0; i < npages; i++) {
		if (!walk(as, va + i * PAGE_SIZE, false, &pte)) {
			*pte = 0;
		}
	}
	spin_unlock_irqrestore(&as->lock, lock_flags);
	tlb_shootdown(as, va, npages);
	return 0;
}

/* See vmm_next_table(); called with as->lock held. */
static uintptr_t next_table_locked(struct addr_space *as, uintptr_t va, uintptr_t end)
{
	while (va < end) {
		uint64_t *table = phys_to_virt(as->pml4_phys);
		int level = LEVELS - 1;
		for (; level > 0; level--) {
			uint64_t e = table[index_at(va, level)];
			if (!(e & PTE_P) || e & PTE_PS) {
				break;
			}
			table = table_of(e);
		}
		if (level == 0) {
			return va; /* a last-level table covers va */
		}
		/* Nothing below this entry: go to the start of the next one. */
		uint64_t span = 1ull << (PAGE_SHIFT + 9 * level);
		uintptr_t next = (va & ~(span - 1)) + span;
		va = next > va ? next : end;
	}
	return end;
}

int vmm_protect(struct addr_space *as, uintptr_t va, uint64_t npages, unsigned flags)
{
	uint64_t *pte;

	if (!range_ok(va, npages, flags)) {
		return -EINVAL;
	}
	uintptr_t end = va + npages * PAGE_SIZE;
	uint64_t lock_flags = spin_lock_irqsave(&as->lock);
	for (uintptr_t a = next_table_locked(as, va, end); a < end;
	     a = next_table_locked(as, a + PAGE_SIZE, end)) {
		if (!walk(as, a, false, &pte) && holds_frame(*pte)) {
			*pte = (*pte & PTE_ADDR) | pte_flags(flags);
		}
	}
	spin_unlock_irqrestore(&as->lock, lock_flags);
	tlb_shootdown(as, va, npages);
	return 0;
}

uintptr_t vmm_next_table(struct addr_space *as, uintptr_t va, uintptr_t end)
{
	uint64_t lock_flags = spin_lock_irqsave(&as->lock);

	va = next_table_locked(as, va, end);
	spin_unlock_irqrestore(&as->lock, lock_flags);
	return va;
}

int vmm_lookup(struct addr_space *as, uintptr_t va, uint64_t *pa, unsigned *flags)
{
	uint64_t *pte;
	int err;
	uint64_t lock_flags = spin_lock_irqsave(&as->lock);

	err = walk(as, PAGE_ALIGN_DOWN(va), false, &pte);
	if (!err && !holds_frame(*pte)) {
		err = -ENOENT;
	}
	if (!err) {
		*pa = (*pte & PTE_ADDR) + va % PAGE_SIZE;
		*flags = vm_flags(*pte);
	}
	spin_unlock_irqrestore(&as->lock, lock_flags);
	return err == -EINVAL ? -ENOENT : err;
}

/* Does [pa, pa + 2 MiB) overlap memory the firmware reports as RAM? */
static bool holds_ram(uint64_t pa)
{
	for (uint32_t i = 0; i < boot_info.nmmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		bool ram = e->type == BOOT_MEM_USABLE || e->type == BOOT_MEM_ACPI_RECLAIM ||
			   e->type == BOOT_MEM_ACPI_NVS;
		if (ram && e->base < pa + LARGE_PAGE && e->base + e->length > pa) {
			return true;
		}
	}
	return false;
}

static uint64_t direct_map_limit(void)
{
	uint64_t limit = 4 * GIB; /* the APICs and other MMIO live below 4 GiB */

	for (uint32_t i = 0; i < boot_info.nmmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		if (e->type != BOOT_MEM_USABLE && e->type != BOOT_MEM_ACPI_RECLAIM &&
		    e->type != BOOT_MEM_ACPI_NVS) {
			continue;
		}
		if (e->base + e->length > limit) {
			limit = e->base + e->length;
		}
	}
	return (limit + GIB - 1) & ~(GIB - 1);
}

static void map_direct(uint64_t *pml4)
{
	uint64_t limit = direct_map_limit();

	for (uint64_t pa = 0; pa < limit; pa += LARGE_PAGE) {
		uintptr_t va = DIRECT_MAP_BASE + pa;
		uint64_t *pdpt = table_of(pml4[index_at(va, 3)]);
		uint64_t *pdpte = &pdpt[index_at(va, 2)];
		if (!*pdpte) {
			uint64_t pd = alloc_table(&kernel_space);
			if (!pd) {
				panic("vmm: out of memory building the direct map");
			}
			*pdpte = pd | PTE_P | PTE_W;
		}
		uint64_t entry = pa | PTE_P | PTE_W | PTE_PS | PTE_NX;
		if (!holds_ram(pa)) {
			entry |= PTE_PCD | PTE_PWT;
		}
		table_of(*pdpte)[index_at(va, 1)] = entry;
	}
}

static void map_image(void)
{
	for (uintptr_t va = (uintptr_t)_kernel_start; va < (uintptr_t)_kernel_end;
	     va += PAGE_SIZE) {
		unsigned flags = VM_WRITE;
		if (va < (uintptr_t)_text_end) {
			flags = VM_EXEC;
		} else if (va < (uintptr_t)_rodata_end) {
			flags = 0;
		}
		if (vmm_map(&kernel_space, va, va - KERNEL_VMA, 1, flags)) {
			panic("vmm: cannot map the kernel image at 0x%lx", va);
		}
	}
}

void vmm_init(void)
{
	uint64_t pml4_phys = alloc_table(&kernel_space);

	if (!pml4_phys) {
		panic("vmm: out of memory for the kernel page tables");
	}
	uint64_t *pml4 = phys_to_virt(pml4_phys);
	for (unsigned i = KERNEL_HALF_FIRST; i < ENTRIES; i++) {
		uint64_t pdpt = alloc_table(&kernel_space);
		if (!pdpt) {
			panic("vmm: out of memory for the kernel page tables");
		}
		pml4[i] = pdpt | PTE_P | PTE_W;
	}
	kernel_space.pml4_phys = pml4_phys;
	map_direct(pml4);
	map_image();
	vmm_activate_kernel();
}

void vmm_activate_kernel(void)
{
	write_cr3(kernel_space.pml4_phys);
}

/* Says which user space this CPU is about to load (0: none), for tlb_shootdown(). */
static void publish(uint64_t pml4_phys)
{
	/* seq_cst: a full barrier before the CR3 write; pairs with the fence in tlb_shootdown() */
	__atomic_store_n(&this_cpu()->user_pml4, pml4_phys, __ATOMIC_SEQ_CST);
}

void vmm_deactivate(void)
{
	publish(0);
	write_cr3(kernel_space.pml4_phys);
}

void vmm_activate(struct addr_space *as)
{
	if ((read_cr3() & PTE_ADDR) != as->pml4_phys) {
		publish(as->pml4_phys);
		write_cr3(as->pml4_phys);
	}
}

int vmm_space_init(struct addr_space *as)
{
	uint64_t pml4 = alloc_table(as);

	if (!pml4) {
		return -ENOMEM;
	}
	uint64_t *top = phys_to_virt(pml4);
	const uint64_t *kernel_top = phys_to_virt(kernel_space.pml4_phys);
	for (unsigned i = KERNEL_HALF_FIRST; i < ENTRIES; i++) {
		top[i] = kernel_top[i];
	}
	as->pml4_phys = pml4;
	as->lock = (struct spinlock)SPINLOCK_INIT;
	return 0;
}

/* Hands release the frames table (at level) maps and the tables below it, then table itself. */
static void free_tables(uint64_t table_pa, int level, void (*release)(void *ctx, uint64_t pa),
			void *ctx)
{
	uint64_t *table = phys_to_virt(table_pa);

	for (unsigned i = 0; i < ENTRIES; i++) {
		if (level == 0 && holds_frame(table[i])) {
			release(ctx, table[i] & PTE_ADDR);
		} else if (level > 0 && table[i] & PTE_P) {
			free_tables(table[i] & PTE_ADDR, level - 1, release, ctx);
		}
	}
	release(ctx, table_pa);
}

void vmm_space_destroy(struct addr_space *as, void (*release)(void *ctx, uint64_t pa), void *ctx)
{
	uint64_t *top = phys_to_virt(as->pml4_phys);

	for (unsigned i = 0; i < KERNEL_HALF_FIRST; i++) {
		if (top[i] & PTE_P) {
			free_tables(top[i] & PTE_ADDR, LEVELS - 2, release, ctx);
		}
	}
	release(ctx, as->pml4_phys);
	as->pml4_phys = 0;
}
