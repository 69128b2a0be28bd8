/*
 * gdt: per-CPU GDT and TSS. The selector order is fixed by syscall/sysret
 * (SDM 2B SYSRET): user data must sit 8 bytes below user code, and both 8
 * and 16 bytes above the STAR base selector GDT_USER_BASE.
 */
#ifndef SPOOR_ARCH_GDT_H
#define SPOOR_ARCH_GDT_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_USER_BASE	0x18 /* STAR[63:48]: sysret loads SS = +8, CS = +16 */
#define GDT_USER_DATA	(0x20 | 3)
#define GDT_USER_CODE	(0x28 | 3)
#define GDT_TSS		0x30

#define IST_DOUBLE_FAULT  1
#define IST_NMI		  2
#define IST_MACHINE_CHECK 3

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

_Static_assert(sizeof(struct tss) == 104, "SDM 3A 8.7: 64-bit TSS");

struct gdt {
	uint64_t entries[8]; /* null, kcode, kdata, user base, udata, ucode, tss lo, tss hi */
};

struct cpu;

/* Loads this CPU's GDT, TSS (with IST stacks) and segment registers. */
void gdt_init_cpu(struct cpu *c);

#endif
