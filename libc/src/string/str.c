/*
 * str: the NUL-terminated string functions of string.h. Byte at a time:
 * reading whole words could run past the terminator into a page that is
 * not mapped, and these strings are short. Comparisons are of unsigned
 * chars, as C says.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p) {
		p++;
	}
	return p - s;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n]) {
		n++;
	}
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (; n > 0; n--, x++, y++) {
		if (*x != *y || !*x) {
			return *x - *y;
		}
	}
	return 0;
}

char *strcpy(char *restrict dst, const char *restrict src)
{
	char *d = dst;

	while ((*d++ = *src++)) {
	}
	return dst;
}

/* As C's: copies at most n bytes and pads with NULs; dst is unterminated if src is that long. */
char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++) {
		dst[i] = src[i];
	}
	for (; i < n; i++) {
		dst[i] = '\0';
	}
	return dst;
}

char *strcat(char *restrict dst, const char *restrict src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

/* The terminator is part of the string: strchr(s, '\0') finds it. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c) {
			return (char *)s;
		}
		if (!*s) {
			return NULL;
		}
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c) {
			last = s;
		}
		if (!*s) {
			return (char *)last;
		}
	}
}

/* Quadratic in the worst case; fine for the short strings of a shell and its tools. */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	/* The empty tail counts too: an empty needle is found at the end of an empty haystack. */
	do {
		if (strncmp(haystack, needle, n) == 0) {
			return (char *)haystack;
		}
	} while (*haystack++);
	return NULL;
}

/* The length of the prefix of s made of bytes in set (in_set) or of bytes not in it. */
static size_t span(const char *s, const char *set, bool in_set)
{
	size_t n = 0;

	while (s[n] && (strchr(set, s[n]) != NULL) == in_set) {
		n++;
	}
	return n;
}

size_t strspn(const char *s, const char *accept)
{
	return span(s, accept, true);
}

size_t strcspn(const char *s, const char *reject)
{
	return span(s, reject, false);
}

/*
 * Splits s at runs of delim bytes: the first call passes s, later ones
 * NULL; *save keeps the position between calls. Returns the next token,
 * terminated in place, or NULL when none is left.
 */
char *strtok_r(char *restrict s, const char *restrict delim, char **restrict save)
{
	char *token;

	if (!s) {
		s = *save;
	}
	s += strspn(s, delim);
	if (!*s) {
		*save = s;
		return NULL;
	}
	token = s;
	s += strcspn(s, delim);
	if (*s) {
		*s++ = '\0';
	}
	*save = s;
	return token;
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = malloc(n);

	if (copy) {
		memcpy(copy, s, n);
	}
	return copy;
}
