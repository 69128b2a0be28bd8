/*
 * boot: the Multiboot2 header and the 32-bit entry GRUB jumps to.
 *
 * GRUB leaves us in 32-bit protected mode with paging off, eax holding the
 * Multiboot2 magic and ebx the physical address of the boot information.
 * We check the CPU, build boot page tables that map the first 1 GiB three
 * times (identity, direct map, kernel image), enter long mode and call
 * kmain(info) on the higher-half boot stack. The identity map is needed
 * only until the jump to the higher half; the APs' trampoline uses the same
 * tables (kernel/arch/x86_64/trampoline.S), so they stay alive.
 */
#include "mm/memlayout.h"

#define MB2_MAGIC 0xe85250d6		/* Multiboot2 spec 3.1.1 */
#define MB2_ARCH_I386 0
#define MB2_BOOT_MAGIC 0x36d76289	/* what the loader puts in eax */

#define CR0_PE (1 << 0)
#define CR0_WP (1 << 16)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define EFER_LME (1 << 8)
#define EFER_NXE (1 << 11)
#define PTE_P 0x1
#define PTE_W 0x2
#define PTE_PS 0x80

#define COM1 0x3f8
#define BOOT_STACK_SIZE 16384

#define PHYS(sym) ((sym) - KERNEL_VMA)

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* end tag */
	.word 0, 0
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov $PHYS(boot_stack_top), %esp
	cmp $MB2_BOOT_MAGIC, %eax
	jne .Lnot_multiboot
	mov %ebx, %edi			/* kept for kmain's first argument */

	/* Long mode and NX: CPUID 0x80000001 EDX bits 29 and 20. */
	mov $0x80000000, %eax
	cpuid
	cmp $0x80000001, %eax
	jb .Lno_long_mode
	mov $0x80000001, %eax
	cpuid
	test $(1 << 29), %edx
	jz .Lno_long_mode
	test $(1 << 20), %edx
	jz .Lno_long_mode

	/* PD: 512 x 2 MiB pages covering the first 1 GiB. */
	mov $PHYS(boot_pd), %ebx
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $21, %eax
	or $(PTE_P | PTE_W | PTE_PS), %eax
	mov %eax, (%ebx, %ecx, 8)
	inc %ecx
	cmp $512, %ecx
	jne 1b

	/* Both PDPTs point at that PD: low (identity, direct map), high (image). */
	mov $PHYS(boot_pd), %eax
	or $(PTE_P | PTE_W), %eax
	mov %eax, PHYS(boot_pdpt_low)
	mov %eax, PHYS(boot_pdpt_high) + 510 * 8
	mov $PHYS(boot_pdpt_low), %eax
	or $(PTE_P | PTE_W), %eax
	mov %eax, PHYS(boot_pml4)			/* 0x0 */
	mov %eax, PHYS(boot_pml4) + 256 * 8		/* DIRECT_MAP_BASE */
	mov $PHYS(boot_pdpt_high), %eax
	or $(PTE_P | PTE_W), %eax
	mov %eax, PHYS(boot_pml4) + 511 * 8		/* KERNEL_VMA */

	mov %cr4, %eax
	or $CR4_PAE, %eax
	mov %eax, %cr4
	mov $PHYS(boot_pml4), %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx		/* EFER */
	rdmsr
	or $(EFER_LME | EFER_NXE), %eax
	wrmsr
	mov %cr0, %eax
	or $(CR0_PG | CR0_WP | CR0_PE), %eax
	mov %eax, %cr0
	lgdt boot_gdtr
	ljmp $0x08, $.Llong_mode

.Lnot_multiboot:
	mov $boot_msg_magic, %esi
	jmp .Lfail
.Lno_long_mode:
	mov $boot_msg_cpu, %esi
.Lfail:
	/* Polled COM1 output: the serial driver does not exist yet. */
	mov $(COM1 + 5), %dx
2:	in %dx, %al
	test $0x20, %al
	jz 2b
	mov $COM1, %dx
	lodsb
	test %al, %al
	jz 3f
	out %al, %dx
	jmp .Lfail
3:	cli
	hlt
	jmp 3b

	.code64
.Llong_mode:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	xor %ax, %ax
	mov %ax, %fs
	mov %ax, %gs
	movabs $boot_stack_top, %rsp
	xor %ebp, %ebp			/* ends the panic stack walk */
	movabs $kmain, %rax
	call *%rax
4:	cli
	hlt
	jmp 4b

	.section .boot.data, "a"
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
boot_gdt_end:
boot_gdtr:
	.word boot_gdt_end - boot_gdt - 1
	.long boot_gdt
boot_msg_magic:
	.asciz "spoor: not started by a Multiboot2 loader\r\n"
boot_msg_cpu:
	.asciz "spoor: this CPU lacks long mode or NX; Spoor needs an x86_64 CPU\r\n"

	/* Page tables and stack are in the image so their addresses are fixed. */
	.section .data
	.balign 4096
	.globl boot_pml4
boot_pml4:
	.fill 512, 8, 0
boot_pdpt_low:
	.fill 512, 8, 0
boot_pdpt_high:
	.fill 512, 8, 0
boot_pd:
	.fill 512, 8, 0

	.section .bss
	.balign 16
boot_stack:
	.skip BOOT_STACK_SIZE
	.globl boot_stack_top
boot_stack_top:
