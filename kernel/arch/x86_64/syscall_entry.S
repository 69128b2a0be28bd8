/*
 * syscall_entry: where the `syscall` instruction lands (MSR_LSTAR).
 *
 * The CPU left the user rip in rcx and rflags in r11, with interrupts
 * masked (MSR_FMASK) and still on the user stack. We switch GS and the
 * stack, build a struct trap_frame like the interrupt stubs do, so that
 * every path back to user mode is trap_return, and call syscall_dispatch,
 * still masked: it enables interrupts itself. So does sys_ipc,
 * after the IPC fast path, which runs without them (under TCG each sti
 * costs a return to QEMU's main loop, a good part of a fast round trip).
 *
 * ipc_call and ipc_reply_recv, which may take the IPC fast path, go to
 * sys_ipc instead, with the stack below the frame prepared
 * as a switch_context() resumes it (arch/x86_64/switch.h): a thread that
 * blocks on the fast path leaves nothing else on its stack, and resumes
 * at ipc_fast_resume unless its partner returns it to user mode directly
 * (ipc/ipc.h). They may come back on another thread's stack: they leave
 * through the frame that struct syscall_leave (syscall/syscall.h) names.
 */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/switch.h"
#include "arch/x86_64/trap_frame.inc"

#define GDT_USER_DATA (0x20 | 3)
#define GDT_USER_CODE (0x28 | 3)
#define VECTOR_SYSCALL 0x100

/* The numbers of abi/syscalls.def as assembler symbols: SYS_exit, ... */
#define SYSCALL(nr, name, nargs) .set SYS_##name, nr;
#include "abi/syscalls.def"
#undef SYSCALL

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
	cmpq $SYS_ipc_call, %rax
	je 1f
	cmpq $SYS_ipc_reply_recv, %rax
	je 1f
	call syscall_dispatch
	jmp trap_return

1:	pushq $ipc_fast_resume		/* where a switch_context() resumes us */
	subq $(SWITCH_SAVED_REGS * 8 + 8), %rsp	/* the saved registers, and 8 to align the call */
	call sys_ipc			/* struct syscall_leave in rax:rdx */
	movq %rax, %rsp			/* the frame to leave from, on its own stack */
	movq %rdx, %rdi
	call syscall_return
	jmp trap_return

/*
 * A thread blocked on the IPC fast path and woken otherwise, with its
 * frame right above; switch_context() left the unused words of the resume
 * area in the callee-saved registers.
 */
ipc_fast_resume:
	xorl %ebp, %ebp			/* the stack walk ends here */
	call sched_finish_switch
	movq %rsp, %rdi
	call syscall_ipc_resumed
	jmp trap_return
