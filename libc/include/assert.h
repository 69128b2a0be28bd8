/*
 * assert.h: assert(cond) prints "file:line: function: assertion 'cond'
 * failed" on the console and aborts the program (exit status 134). With
 * NDEBUG defined it evaluates nothing. Like C's, this header may be
 * included again after NDEBUG changes.
 */
#undef assert
#ifdef NDEBUG
#define assert(cond) ((void)0)
#else
#define assert(cond) ((cond) ? (void)0 : __assert_fail(#cond, __FILE__, __LINE__, __func__))
#endif

#ifndef SPOOR_LIBC_ASSERT_H
#define SPOOR_LIBC_ASSERT_H

__attribute__((noreturn)) void __assert_fail(const char *cond, const char *file, int line,
					     const char *func);

#endif
