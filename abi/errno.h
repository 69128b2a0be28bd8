/*
 * Error numbers, generated from errno.def. Kernel functions and syscalls
 * return 0 (or a non-negative result) on success and -E* on failure.
 */
#ifndef SPOOR_ABI_ERRNO_H
#define SPOOR_ABI_ERRNO_H

enum {
#define ERRNO(name, value, text) name = value,
#include "errno.def"
#undef ERRNO
};

#endif
