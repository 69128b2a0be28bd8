/*
 * func_glob: the function tracer's patterns (abi/trace_func.h, PATTERNS)
 * checked and matched against kernel function names, one code for the
 * kernel, which patches what they match, and the shell, which says which
 * pattern of a command is wrong before anything is sent. Pure: no state,
 * any context.
 */
#ifndef SPOOR_COMMON_FUNC_GLOB_H
#define SPOOR_COMMON_FUNC_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the len bytes at p are one pattern (PATTERNS). */
bool func_glob_valid(const char *p, size_t len);

/* Whether pattern p (len bytes, valid) matches the whole of the NUL-terminated name. */
bool func_glob_match(const char *p, size_t len, const char *name);

/*
 * The next pattern of a list separated by spaces, from *at (at most end):
 * its start in *p and length in *len, *at moved past it. False at the
 * list's end.
 */
bool func_glob_next(const char **at, const char *end, const char **p, size_t *len);

#endif
