/*
 * format: the one vsnprintf of the project, and text built piece by piece
 * with it (struct format_buf), compiled by the kernel, by libc and by the
 * host unit tests. Pure code: no allocation, no locks, no
 * dependency beyond the compiler's own headers.
 *
 * Conversions: d i u o x X p s c %. Flags: - 0 + space #. Width and
 * precision, each a number or '*'. Length modifiers: hh h l ll z j t.
 * A conversion it does not know ends the formatting: the rest of the
 * format is copied as it stands, so no later argument is misread.
 */
#ifndef SPOOR_COMMON_FORMAT_H
#define SPOOR_COMMON_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Formats into buf (always NUL-terminated when size > 0; buf may be NULL
 * when size is 0) and returns the length the whole output would have had,
 * like C's vsnprintf.
 */
int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int format_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Text built piece by piece into a caller's buffer: every character is
 * counted in len, as snprintf counts its return value, and only what fits
 * is stored, NUL-terminated when size > 0 (buf may be NULL when size is 0).
 */
struct format_buf {
	char *buf;
	size_t size;
	size_t len; /* characters produced so far, stored or not */
};

/* An empty text in buf. */
struct format_buf format_buf_start(char *buf, size_t size);

/* Appends the character c. */
void format_buf_putc(struct format_buf *b, char c);

/* Appends what format_snprintf() makes of fmt and the arguments. */
void format_buf_printf(struct format_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
