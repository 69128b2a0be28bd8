/*
 * format: a small vsnprintf for the kernel. Pure code with no kernel
 * dependencies, so the host unit tests compile this very file.
 *
 * Conversions: %d %i %u %x %X %p %s %c %%, flags '-' and '0', a field
 * width, a precision for %s, and the length modifiers l, ll and z.
 */
#ifndef SPOOR_LIB_FORMAT_H
#define SPOOR_LIB_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Formats into buf (always NUL-terminated when size > 0) and returns the
 * length the whole output would have had, like C's vsnprintf.
 */
int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int format_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
