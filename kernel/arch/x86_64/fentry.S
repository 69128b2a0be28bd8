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
 */
	.section .note.GNU-stack, "", @progbits
	.text
	.globl func_trampoline
	.type func_trampoline, @function
func_trampoline:
	/* at a function's entry %rsp is 8 mod 16; the call made it 0, these ten pushes keep it */
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
	mov 80(%rsp), %rdi /* the return into the function: its site + 5 */
	sub $5, %rdi
	mov 88(%rsp), %rsi /* the return into its caller */
	call func_trace_hit
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
	ret
	.size func_trampoline, . - func_trampoline
