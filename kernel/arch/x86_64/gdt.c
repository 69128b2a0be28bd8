/*
 * gdt: builds and loads each CPU's GDT and TSS. Segmentation is flat in
 * long mode; the GDT exists for the code selectors' privilege levels and
 * to point at the TSS, whose IST stacks catch double faults, NMIs and
 * machine checks on known-good stacks.
 */
#include "arch/x86_64/gdt.h"

#include "arch/x86_64/percpu.h"

#define SEG_CODE64	   0x00af9a000000ffff /* present, DPL 0, code, L */
#define SEG_DATA	   0x00cf92000000ffff /* present, DPL 0, data, writable */
#define SEG_DPL3	   (3ull << 45)
#define TSS_TYPE_AVAILABLE 0x89ull /* SDM 3A 3.5: present, 64-bit TSS */

struct gdtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static uint64_t tss_low(uint64_t base, uint32_t limit)
{
	return (limit & 0xffff) | ((base & 0xffffff) << 16) | (TSS_TYPE_AVAILABLE << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((base >> 24) & 0xff) << 56;
}

void gdt_init_cpu(struct cpu *c)
{
	struct gdt *g = &c->gdt;
	uint64_t tss = (uintptr_t)&c->tss;

	c->tss.ist[IST_DOUBLE_FAULT - 1] = (uintptr_t)(c->ist_double_fault + IST_STACK_SIZE);
	c->tss.ist[IST_NMI - 1] = (uintptr_t)(c->ist_nmi + IST_STACK_SIZE);
	c->tss.ist[IST_MACHINE_CHECK - 1] = (uintptr_t)(c->ist_machine_check + IST_STACK_SIZE);
	c->tss.rsp[0] = (uintptr_t)(c->kstack + KSTACK_SIZE);
	c->tss.iomap_base = sizeof(struct tss); /* no I/O bitmap: user port I/O faults */

	g->entries[0] = 0;
	g->entries[GDT_KERNEL_CODE / 8] = SEG_CODE64;
	g->entries[GDT_KERNEL_DATA / 8] = SEG_DATA;
	g->entries[GDT_USER_BASE / 8] = 0;
	g->entries[GDT_USER_DATA / 8] = SEG_DATA | SEG_DPL3;
	g->entries[GDT_USER_CODE / 8] = SEG_CODE64 | SEG_DPL3;
	g->entries[GDT_TSS / 8] = tss_low(tss, sizeof(struct tss) - 1);
	g->entries[GDT_TSS / 8 + 1] = tss >> 32;

	struct gdtr gdtr = {.limit = sizeof(*g) - 1, .base = (uintptr_t)g};
	/*
	 * Reload every segment register: CS through a far return, the data
	 * segments directly. GS and FS are zeroed here; their bases are set
	 * through MSRs afterwards (percpu_init), since loading a selector
	 * would clear them.
	 */
	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ds\n\t"
			 "movw %w2, %%es\n\t"
			 "movw %w2, %%ss\n\t"
			 "movw %w3, %%fs\n\t"
			 "movw %w3, %%gs\n\t"
			 "ltr %w4"
			 :
			 : "m"(gdtr), "i"(GDT_KERNEL_CODE), "r"(GDT_KERNEL_DATA), "r"(0),
			   "r"(GDT_TSS)
			 : "rax", "memory");
}
