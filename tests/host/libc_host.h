/*
 * libc_host: the host tests' view of Spoor's libc as libc/host.mk builds
 * it. Every global of libc's pure files is renamed spoor_<name>, so these
 * declarations sit beside the host's own <string.h> and <stdlib.h>; the
 * error numbers become SPOOR_E* for the same reason (the host's <errno.h>
 * defines E* as macros). libc's hooks (libc/src/internal.h) keep their
 * names: test_libc_malloc.c supplies the pages, the yield and the fatal
 * exit, test_libc_stdio.c the console.
 *
 * The compiler checks every declaration here against libc/include and
 * libc/src/internal.h: libc/host.mk compiles this header a second time
 * (tests/host/libc/libc_host_check.c), against libc's own headers, with
 * each spoor_<name> that libc defines mapped back to <name>. A
 * declaration then redeclares libc's, and one whose type differs stops
 * the build before run_tests links.
 */
#ifndef SPOOR_TESTS_HOST_LIBC_HOST_H
#define SPOOR_TESTS_HOST_LIBC_HOST_H

#include <stdarg.h>
#include <stddef.h>

enum {
#define ERRNO(name, value, text) SPOOR_##name = value,
#include "abi/errno.def"
#undef ERRNO
};

extern int spoor_errno;

/* string.h */
void *spoor_memcpy(void *restrict dst, const void *restrict src, size_t n);
void *spoor_memmove(void *dst, const void *src, size_t n);
void *spoor_memset(void *dst, int c, size_t n);
int spoor_memcmp(const void *a, const void *b, size_t n);
void *spoor_memchr(const void *s, int c, size_t n);
size_t spoor_strlen(const char *s);
size_t spoor_strnlen(const char *s, size_t max);
int spoor_strcmp(const char *a, const char *b);
int spoor_strncmp(const char *a, const char *b, size_t n);
char *spoor_strcpy(char *restrict dst, const char *restrict src);
char *spoor_strncpy(char *restrict dst, const char *restrict src, size_t n);
char *spoor_strcat(char *restrict dst, const char *restrict src);
char *spoor_strchr(const char *s, int c);
char *spoor_strrchr(const char *s, int c);
char *spoor_strstr(const char *haystack, const char *needle);
size_t spoor_strspn(const char *s, const char *accept);
size_t spoor_strcspn(const char *s, const char *reject);
char *spoor_strtok_r(char *restrict s, const char *restrict delim, char **restrict save);
char *spoor_strdup(const char *s);
char *spoor_strerror(int e);

/* ctype.h */
int spoor_isalnum(int c);
int spoor_isalpha(int c);
int spoor_isblank(int c);
int spoor_iscntrl(int c);
int spoor_isdigit(int c);
int spoor_isgraph(int c);
int spoor_islower(int c);
int spoor_isprint(int c);
int spoor_ispunct(int c);
int spoor_isspace(int c);
int spoor_isupper(int c);
int spoor_isxdigit(int c);
int spoor_tolower(int c);
int spoor_toupper(int c);

/* stdlib.h */
void *spoor_malloc(size_t size);
void *spoor_calloc(size_t n, size_t size);
void *spoor_realloc(void *p, size_t size);
void spoor_free(void *p);
long spoor_strtol(const char *restrict s, char **restrict end, int base);
unsigned long spoor_strtoul(const char *restrict s, char **restrict end, int base);
long long spoor_strtoll(const char *restrict s, char **restrict end, int base);
unsigned long long spoor_strtoull(const char *restrict s, char **restrict end, int base);
int spoor_atoi(const char *s);
void spoor_qsort(void *base, size_t n, size_t size, int (*compare)(const void *a, const void *b));
int spoor_abs(int v);

/* stdio.h: FILE is opaque, so any struct tag will do. */
typedef struct spoor_file spoor_FILE;
extern spoor_FILE *const spoor_stdout;
extern spoor_FILE *const spoor_stderr;
int spoor_printf(const char *restrict fmt, ...) __attribute__((format(printf, 1, 2)));
int spoor_fprintf(spoor_FILE *restrict f, const char *restrict fmt, ...)
    __attribute__((format(printf, 2, 3)));
int spoor_fputs(const char *restrict s, spoor_FILE *restrict f);
int spoor_puts(const char *s);
int spoor_fputc(int c, spoor_FILE *f);
int spoor_putchar(int c);
int spoor_fflush(spoor_FILE *f);
int spoor_snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
    __attribute__((format(printf, 3, 4)));
int spoor_vsnprintf(char *restrict buf, size_t size, const char *restrict fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* The hooks (libc/src/internal.h), defined by the tests. */
void *__libc_pages_map(size_t len);
void __libc_pages_unmap(void *addr, size_t len);
void __libc_yield(void);
long __libc_console_write(const void *buf, size_t len);
__attribute__((noreturn)) void __libc_fatal(const char *msg);

#endif
