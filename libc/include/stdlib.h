/*
 * stdlib.h: memory allocation, number parsing, sorting and ending the
 * program. malloc and friends are thread-safe; their blocks are aligned
 * to 16 bytes.
 */
#ifndef SPOOR_LIBC_STDLIB_H
#define SPOOR_LIBC_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

/*
 * As C's. A failed allocation returns NULL with errno = ENOMEM.
 * malloc(0) returns a unique pointer; realloc(p, 0) frees p and returns
 * NULL. A pointer freed twice or not from malloc aborts the program when
 * its header shows it.
 */
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);

/*
 * As C's: leading white space, a sign, "0x" for base 16 (and base 0,
 * which also takes a leading 0 as octal), then digits up to the base (2
 * to 36). On overflow they return the limit of their type and set errno to
 * ERANGE; a bad base gives 0 and EINVAL. *end (if end is not NULL) points
 * after the last digit used, or at s when there was none.
 */
long strtol(const char *restrict s, char **restrict end, int base);
unsigned long strtoul(const char *restrict s, char **restrict end, int base);
long long strtoll(const char *restrict s, char **restrict end, int base);
unsigned long long strtoull(const char *restrict s, char **restrict end, int base);
int atoi(const char *s); /* strtol in base 10, cut to int */

/* Sorts n elements of size bytes at base in place, in O(n log n) comparisons; not stable. */
void qsort(void *base, size_t n, size_t size, int (*compare)(const void *a, const void *b));

int abs(int v);

/* Flushes stdout, then ends the whole process with status. */
__attribute__((noreturn)) void exit(int status);

/* Prints "<program>: aborted" on the console and ends the process with status 134. */
__attribute__((noreturn)) void abort(void);

#endif
