/*
 * fentry: the function tracer's trampoline (trace/func.h). A traced
 * function's first instruction, its entry NOP made a call, comes here
 * before the function's prologue: the stack holds the return into the
 * function (its site + 5), then the return into its caller, and the
 * argument registers hold its arguments. Everything a C call may change
 * is saved and put back, the flags with it, so the function runs on as
 * if the NOP had run; interrupts stay masked while the entry is recorded,
 * so an interrupt's traced functions wait for it instead of meeting the
 * recursion guard.
 *
 * The graph's trampolines (trace/graph.h) enter the same way and pass
 * graph_enter() the address of the return into the caller, which it may
 * swap for graph_return's: the traced function then returns there.
 */
	.section .note.GNU-stack, "", @progbits

/* at a function's entry %rsp is 8 mod 16; the call made it 0, these ten pushes keep it */
.macro save_call_clobbered
	pushfq
	cli
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
.endm

.macro restore_call_clobbered
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	popfq
.endm

	.text
	.globl func_trampoline
	.type func_trampoline, @function
func_trampoline:
	save_call_clobbered
	mov 80(%rsp), %rdi /* the return into the function: its site + 5 */
	sub $5, %rdi
	mov 88(%rsp), %rsi /* the return into its caller */
	call func_trace_hit
	restore_call_clobbered
	ret
	.size func_trampoline, . - func_trampoline

	.globl graph_trampoline
	.type graph_trampoline, @function
graph_trampoline:
	save_call_clobbered
	xorl %edx, %edx	/* not a root */
	jmp .Lgraph_enter
	.size graph_trampoline, . - graph_trampoline

	.globl graph_root_trampoline
	.type graph_root_trampoline, @function
graph_root_trampoline:
	save_call_clobbered
	movl $1, %edx	/* a root */
.Lgraph_enter:
	lea 88(%rsp), %rdi /* the slot of the return into its caller */
	mov 80(%rsp), %rsi
	sub $5, %rsi	/* the function: its site */
	call graph_enter
	restore_call_clobbered
	ret
	.size graph_root_trampoline, . - graph_root_trampoline

/*
 * A recorded call's function returns here, its result in %rax:%rdx (the
 * other call-clobbered registers are its caller's to lose), %rsp just
 * above the slot its return address was in. The slot takes the address
 * graph_leave() gives back, and the return goes on from it.
 */
	.globl graph_return
	.type graph_return, @function
graph_return:
	sub $8, %rsp	/* %rsp at the slot: 8 mod 16, as at a function's entry */
	pushfq
	cli
	push %rax
	push %rdx
	lea 24(%rsp), %rdi
	call graph_leave
	mov %rax, 24(%rsp)
	pop %rdx
	pop %rax
	popfq
	ret
	.size graph_return, . - graph_return
