/*
 * switch: the context switch and the first entry of a new thread.
 *
 * switch_context(&prev->kernel_rsp, next->kernel_rsp) saves the callee-saved
 * registers on prev's kernel stack, stores its stack pointer, and resumes
 * next where it last called switch_context (or, for a new thread, at the
 * address its stack was prepared to return to). The caller-saved registers
 * are the C caller's business.
 */
	.text
	.globl switch_context
switch_context:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

/*
 * A new user thread's first return from switch_context lands here, with its
 * trap frame right above: finish the switch, then leave through the common
 * interrupt return path, which restores the frame and enters user mode.
 */
	.globl thread_first_entry
thread_first_entry:
	call sched_finish_switch
	call sched_return_to_user
	jmp trap_return
