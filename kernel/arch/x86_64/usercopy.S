/*
 * usercopy: the one place the kernel touches user memory. A page fault
 * with rip inside [usercopy_start, usercopy_end) is first offered to the
 * process's fault handler (demand paging, copy on write); if that cannot
 * resolve it, trap.c resumes at usercopy_fixup, which returns -EFAULT, or
 * at usercopy_fixup_nomem, which returns -ENOMEM, when the page was legal
 * but no frame could be had for it (the tree at its limit).
 *
 * long usercopy(void *dst, const void *src, size_t n): 0, -EFAULT or -ENOMEM.
 * Range checks (user addresses below USER_TOP) are the caller's.
 */
#define EFAULT 14 /* abi/errno.def; usercopy.c asserts both */
#define ENOMEM 12

	.text
	.globl usercopy, usercopy_start, usercopy_end, usercopy_fixup, usercopy_fixup_nomem
usercopy:
	movq %rdx, %rcx
usercopy_start:
	rep movsb
usercopy_end:
	xorl %eax, %eax
	ret
usercopy_fixup:
	movq $-EFAULT, %rax
	ret
usercopy_fixup_nomem:
	movq $-ENOMEM, %rax
	ret
