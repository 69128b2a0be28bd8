/*
 * syscall_entry: where the `syscall` instruction lands (MSR_LSTAR).
 *
 * The CPU left the user rip in rcx and rflags in r11, with interrupts
 * masked (MSR_FMASK) and still on the user stack. We switch GS and the
 * stack, build a struct trap_frame like the interrupt stubs do, so that
 * every path back to user mode is trap_return, and call syscall_dispatch,
 * still masked: it enables interrupts itself, after the IPC fast path,
 * which runs without them (under TCG each sti costs a return to QEMU's
 * main loop, a good part of a fast round trip).
 */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap_frame.inc"

#define GDT_USER_DATA (0x20 | 3)
#define GDT_USER_CODE (0x28 | 3)
#define VECTOR_SYSCALL 0x100

	.text
	.globl syscall_entry
syscall_entry:
	swapgs
	movq %rsp, %gs:PERCPU_USER_RSP
	movq %gs:PERCPU_KSTACK_TOP, %rsp
	pushq $GDT_USER_DATA		/* ss */
	pushq %gs:PERCPU_USER_RSP	/* rsp */
	pushq %r11			/* rflags */
	pushq $GDT_USER_CODE		/* cs */
	pushq %rcx			/* rip */
	pushq $0			/* error */
	pushq $VECTOR_SYSCALL		/* vector */
	push_general_registers
	xorl %ebp, %ebp			/* the stack walk ends here */
	movq %rsp, %rdi
	call syscall_dispatch
	jmp trap_return
