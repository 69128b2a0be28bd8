/*
 * limits.h: the ranges of the integer types, from the compiler's own
 * predefined macros (LP64: long and pointers are 64 bits).
 */
#ifndef SPOOR_LIBC_LIMITS_H
#define SPOOR_LIBC_LIMITS_H

#define CHAR_BIT 8

#define SCHAR_MIN (-SCHAR_MAX - 1)
#define SCHAR_MAX __SCHAR_MAX__
#define UCHAR_MAX (SCHAR_MAX * 2 + 1)
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#else
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#endif

#define SHRT_MIN  (-SHRT_MAX - 1)
#define SHRT_MAX  __SHRT_MAX__
#define USHRT_MAX (SHRT_MAX * 2 + 1)

#define INT_MIN	 (-INT_MAX - 1)
#define INT_MAX	 __INT_MAX__
#define UINT_MAX (INT_MAX * 2u + 1u)

#define LONG_MIN  (-LONG_MAX - 1l)
#define LONG_MAX  __LONG_MAX__
#define ULONG_MAX (LONG_MAX * 2ul + 1ul)

#define LLONG_MIN  (-LLONG_MAX - 1ll)
#define LLONG_MAX  __LONG_LONG_MAX__
#define ULLONG_MAX (LLONG_MAX * 2ull + 1ull)

#endif
