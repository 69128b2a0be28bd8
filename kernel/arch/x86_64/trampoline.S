/*
 * trampoline: where an application processor starts after INIT-SIPI-SIPI,
 * in 16-bit real mode at physical TRAMPOLINE_BASE (smp.c copies this blob
 * there). It climbs to long mode on the boot page tables, which identity
 * map this page, and jumps to ap_entry in the higher half with the stack
 * and struct cpu the boot CPU left in the parameter block at its end.
 *
 * Addresses inside the blob are computed as TRAMPOLINE_BASE + offset, since
 * it runs at a different address than it was linked at.
 */
#define TRAMPOLINE_BASE 0x8000
#define T(sym) (TRAMPOLINE_BASE + (sym) - ap_trampoline)

#define CR0_PE (1 << 0)
#define CR0_WP (1 << 16)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define MSR_EFER 0xc0000080
#define EFER_LME (1 << 8)
#define EFER_NXE (1 << 11)

	.section .trampoline, "a"
	.code16
	.globl ap_trampoline
ap_trampoline:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl T(tramp_gdtr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $T(tramp32)

	.code32
tramp32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl T(tramp_params), %eax	/* params.cr3 */
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP), %eax
	movl %eax, %cr0
	ljmpl $0x18, $T(tramp64)

	.code64
tramp64:
	movq T(tramp_params) + 8, %rsp	/* params.stack */
	movq T(tramp_params) + 16, %rdi	/* params.cpu */
	movq T(tramp_params) + 24, %rax	/* params.entry */
	xorl %ebp, %ebp
	jmp *%rax

	.balign 8
tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00af9a000000ffff	/* 0x18: 64-bit code */
tramp_gdt_end:
tramp_gdtr:
	.word tramp_gdt_end - tramp_gdt - 1
	.long T(tramp_gdt)

	/* struct trampoline_params in smp.c */
	.balign 8
	.globl tramp_params
tramp_params:
	.quad 0, 0, 0, 0
	.globl ap_trampoline_end
ap_trampoline_end:
