/*
 * mem: memcpy, memmove, memset, memcmp, memchr. The copies and memset
 * move eight bytes at a time when source and destination share their
 * alignment, which is the common case of copying structs and buffers;
 * the rest goes byte by byte. No SSE: user code runs without FPU state.
 *
 * The compiler must not turn these loops back into calls of themselves:
 * the Makefile builds libc with -fno-tree-loop-distribute-patterns.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A word that may alias anything, so word copies of char buffers stay defined. */
typedef uint64_t __attribute__((may_alias)) word_t;

#define WORD	  sizeof(word_t)
#define WORD_MASK (WORD - 1)

static bool same_alignment(const void *a, const void *b)
{
	return (((uintptr_t)a ^ (uintptr_t)b) & WORD_MASK) == 0;
}

/* Copies n bytes from low addresses to high: right for dst <= src even when they overlap. */
static void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	if (same_alignment(d, s)) {
		for (; n > 0 && ((uintptr_t)d & WORD_MASK) != 0; n--) {
			*d++ = *s++;
		}
		for (; n >= WORD; n -= WORD, d += WORD, s += WORD) {
			*(word_t *)d = *(const word_t *)s;
		}
	}
	for (; n > 0; n--) {
		*d++ = *s++;
	}
}

/* Copies n bytes from high addresses to low: right for dst > src when they overlap. */
static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	d += n;
	s += n;
	if (same_alignment(d, s)) {
		for (; n > 0 && ((uintptr_t)d & WORD_MASK) != 0; n--) {
			*--d = *--s;
		}
		for (; n >= WORD; n -= WORD) {
			d -= WORD;
			s -= WORD;
			*(word_t *)d = *(const word_t *)s;
		}
	}
	for (; n > 0; n--) {
		*--d = *--s;
	}
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* Compared as integers: the pointers may belong to different objects. */
	if ((uintptr_t)d - (uintptr_t)s >= n) {
		copy_forward(d, s, n);
	} else {
		copy_backward(d, s, n);
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char byte = (unsigned char)c;
	word_t pattern = byte * (word_t)0x0101010101010101ull;

	for (; n > 0 && ((uintptr_t)d & WORD_MASK) != 0; n--) {
		*d++ = byte;
	}
	for (; n >= WORD; n -= WORD, d += WORD) {
		*(word_t *)d = pattern;
	}
	for (; n > 0; n--) {
		*d++ = byte;
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n > 0; n--, x++, y++) {
		if (*x != *y) {
			return *x - *y;
		}
	}
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n > 0; n--, p++) {
		if (*p == (unsigned char)c) {
			return (void *)p;
		}
	}
	return NULL;
}
