/*
 * printf: the printf family, all through format_vsnprintf() in
 * common/format.c, the project's one formatter. Text is formatted whole
 * first, then written with one stream call, so it reaches the console in
 * one piece. Short texts are formatted on the stack; a longer one is
 * formatted a second time into a block from malloc.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/format.h"
#include "libc/src/internal.h"

#define STACK_TEXT 256 /* most lines fit: larger ones cost a malloc and a second pass */

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	char small[STACK_TEXT];
	char *text = small;
	va_list again;
	int n, r;

	va_copy(again, ap);
	n = format_vsnprintf(small, sizeof(small), fmt, ap);
	if ((size_t)n >= sizeof(small)) {
		text = malloc((size_t)n + 1);
		if (!text) {
			va_end(again);
			return -1;
		}
		format_vsnprintf(text, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	r = __libc_file_write(f, text, (size_t)n);
	if (text != small) {
		free(text);
	}
	return r == EOF ? -1 : n;
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *restrict fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt, va_list ap)
{
	return format_vsnprintf(buf, size, fmt, ap);
}

int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = format_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
