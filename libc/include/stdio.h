/*
 * stdio.h: formatted output to the console. stdout and stderr both write
 * to the console capability in slot CAP_SLOT_CONSOLE. stdout is line
 * buffered: it is written out at each newline, when its buffer fills, at
 * fflush() and at exit(). stderr is unbuffered and flushes stdout before
 * each write, so the two keep their order on the one console. One call
 * writes its whole text under the stream's lock: the lines of threads
 * that print at once do not interleave.
 *
 * The printf family formats with common/format.c (its header lists the
 * conversions; there is no floating point). There is no input side.
 */
#ifndef SPOOR_LIBC_STDIO_H
#define SPOOR_LIBC_STDIO_H

#include <stdarg.h>
#include <stddef.h>

#define EOF (-1)

typedef struct file FILE;

extern FILE *const stdout;
extern FILE *const stderr;

/*
 * Output: each returns EOF (printf family: -1) with errno set when the
 * console refused the text, which is then dropped; otherwise fputc and
 * putchar return the character, printf the number of characters, and
 * fputs and puts a non-negative value.
 */
int printf(const char *restrict fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *restrict fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int fprintf(FILE *restrict f, const char *restrict fmt, ...) __attribute__((format(printf, 2, 3)));
int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
int fputs(const char *restrict s, FILE *restrict f);
int puts(const char *s); /* s and a newline */
int fputc(int c, FILE *f);
int putchar(int c);

/* Writes out what f (every stream if f is NULL) holds. Returns 0 or EOF. */
int fflush(FILE *f);

/* As C's: the length the whole text would have had; buf is always terminated if size > 0. */
int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
    __attribute__((format(printf, 3, 4)));
int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
