/*
 * string.h: memory and string functions, as C defines them. Byte strings
 * only: there are no locales.
 */
#ifndef SPOOR_LIBC_STRING_H
#define SPOOR_LIBC_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *restrict dst, const char *restrict src);
char *strncpy(char *restrict dst, const char *restrict src, size_t n);
char *strcat(char *restrict dst, const char *restrict src);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
char *strtok_r(char *restrict s, const char *restrict delim, char **restrict save);

/* A malloc'd copy of s, or NULL with errno = ENOMEM. */
char *strdup(const char *s);

/* The text of error number e from abi/errno.def ("unknown error N" otherwise). */
char *strerror(int e);

#endif
