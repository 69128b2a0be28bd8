/*
 * usercopy: checked copies between kernel buffers and user memory of the
 * current process. A user range must lie below USER_TOP; a page that is
 * not mapped (or not writable, for copy_to_user) gives -EFAULT, never a
 * kernel fault, and one no frame could be had for (mm/account.h) -ENOMEM. May sleep (a copy can
 * fault pages in): call them with interrupts enabled and no lock held.
 */
#ifndef SPOOR_MM_USERCOPY_H
#define SPOOR_MM_USERCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0, -EFAULT or -ENOMEM. */
int copy_from_user(void *dst, uint64_t usrc, size_t len);
int copy_to_user(uint64_t udst, const void *src, size_t len);

/*
 * copy_from_user() for any context, interrupt handlers included: a page
 * that is not mapped is not faulted in (no lock, no sleep) but gives
 * -EFAULT, and no event is traced. For stack walks (trace/stack.c).
 */
int copy_from_user_nofault(void *dst, uint64_t usrc, size_t len);

/*
 * Copies a NUL-terminated string of at most max - 1 characters. Returns its
 * length, -EFAULT, or -E2BIG when no NUL comes within max bytes.
 */
int copy_string_from_user(char *dst, uint64_t usrc, size_t max);

/* For the page-fault handler: is rip inside the user copy loop? */
int usercopy_contains(uint64_t rip);

/*
 * Where a user copy that faulted for good resumes, to return -ENOMEM if
 * the fault was legal but found no memory, else -EFAULT.
 */
uint64_t usercopy_fixup_rip(bool no_memory);

#endif
