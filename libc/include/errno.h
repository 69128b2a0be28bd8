/*
 * errno.h: the E* numbers of abi/errno.def and the errno variable that the
 * C functions set on failure (strtol, malloc, printf...). Spoor's own
 * wrappers in spoor.h return -E* instead and leave errno alone.
 *
 * errno is one variable for the whole process, not one per thread: the
 * ABI has no thread pointer to find per-thread data with. Read it right
 * after the call that set it.
 */
#ifndef SPOOR_LIBC_ERRNO_H
#define SPOOR_LIBC_ERRNO_H

#include "abi/errno.h"

extern int errno;

/* As in string.h: the text of error number e. */
char *strerror(int e);

#endif
