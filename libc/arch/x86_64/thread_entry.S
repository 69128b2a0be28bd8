/*
 * thread_entry: where thread_spawn()'s threads begin. The kernel jumps
 * here with rsp = the stack top thread_spawn() chose (16-byte aligned)
 * and rdi = its struct thread_start. A call from an aligned rsp gives the
 * callee the alignment the SysV ABI promises at function entry (rsp + 8
 * aligned). __libc_thread_main (src/thread/thread.c) never returns: it
 * ends the thread with thread_exit.
 */
	.text
	.globl __libc_thread_entry
	.type __libc_thread_entry, @function
__libc_thread_entry:
	.cfi_startproc
	.cfi_undefined rip		/* no caller: debuggers stop unwinding here */
	xorl	%ebp, %ebp
	call	__libc_thread_main
	ud2
	.cfi_endproc
	.size __libc_thread_entry, . - __libc_thread_entry

	.section .note.GNU-stack, "", @progbits
