/*
 * crt0: _start, where the kernel starts a program's main thread.
 *
 * The kernel's side of the contract: rsp is 16-byte aligned and points at
 * argc (8 bytes), then argv[0..argc-1], a NULL, then the strings; rdi and
 * rsi hold argc and argv as well. This side reads them from the stack,
 * which is the record of truth, clears rbp so that stack walks end here,
 * and calls __libc_start (src/sys/start.c), which never returns.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip		/* no caller: debuggers stop unwinding here */
	xorl	%ebp, %ebp
	movq	(%rsp), %rdi		/* argc */
	leaq	8(%rsp), %rsi		/* argv */
	andq	$-16, %rsp		/* already aligned by contract; a call needs it, so make sure */
	call	__libc_start
	ud2
	.cfi_endproc
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
