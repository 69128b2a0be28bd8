/*
 * Tests common/format.c, the kernel's snprintf. Each row is a format,
 * its arguments, the expected text and the expected return value. Where C
 * defines the result and the kernel means to follow it, the row is also
 * run through the host's snprintf, which must agree; rows where the kernel
 * deliberately differs from glibc say so.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/format.h"
#include "test.h"

/*
 * A table cannot hold a variadic call, so each row names the shape of its
 * argument list and call() spells out that call.
 */
enum args {
	A_NONE,
	A_INT,	    /* (int)i */
	A_UINT,	    /* (unsigned)u */
	A_LONG,	    /* (long)i */
	A_ULONG,    /* (unsigned long)u */
	A_LLONG,    /* (long long)i */
	A_ULLONG,   /* (unsigned long long)u */
	A_SIZE,	    /* (size_t)u */
	A_SSIZE,    /* (ssize_t)i */
	A_PTR,	    /* (void *)u */
	A_STR,	    /* s */
	A_STAR_INT, /* (int)i for '*', then (int)u */
	A_STAR_STR, /* (int)i for '*', then s */
	A_STR_INT,  /* s, then (int)i */
};

struct format_row {
	const char *fmt;
	enum args args;
	int64_t i;
	uint64_t u;
	const char *s;
	const char *want;
	int ret;
	bool not_host; /* glibc prints something else here, on purpose */
};

typedef int (*snprintf_fn)(char *buf, size_t size, const char *fmt, ...);

static int call(snprintf_fn fn, char *buf, size_t size, const struct format_row *r)
{
	switch (r->args) {
	case A_NONE:
		return fn(buf, size, r->fmt);
	case A_INT:
		return fn(buf, size, r->fmt, (int)r->i);
	case A_UINT:
		return fn(buf, size, r->fmt, (unsigned)r->u);
	case A_LONG:
		return fn(buf, size, r->fmt, (long)r->i);
	case A_ULONG:
		return fn(buf, size, r->fmt, (unsigned long)r->u);
	case A_LLONG:
		return fn(buf, size, r->fmt, (long long)r->i);
	case A_ULLONG:
		return fn(buf, size, r->fmt, (unsigned long long)r->u);
	case A_SIZE:
		return fn(buf, size, r->fmt, (size_t)r->u);
	case A_SSIZE:
		return fn(buf, size, r->fmt, (ssize_t)r->i);
	case A_PTR:
		return fn(buf, size, r->fmt, (void *)(uintptr_t)r->u);
	case A_STR:
		return fn(buf, size, r->fmt, r->s);
	case A_STAR_INT:
		return fn(buf, size, r->fmt, (int)r->i, (int)r->u);
	case A_STAR_STR:
		return fn(buf, size, r->fmt, (int)r->i, r->s);
	case A_STR_INT:
		return fn(buf, size, r->fmt, r->s, (int)r->i);
	}
	return -1;
}

static const struct format_row conversions[] = {
    /* Plain text and %%. */
    {"", A_NONE, .want = "", .ret = 0},
    {"hello", A_NONE, .want = "hello", .ret = 5},
    {"%%", A_NONE, .want = "%", .ret = 1},
    {"100%% done", A_NONE, .want = "100% done", .ret = 9},

    /* %d %i %u %x %X, int-sized. */
    {"%d", A_INT, .i = 0, .want = "0", .ret = 1},
    {"%d", A_INT, .i = 42, .want = "42", .ret = 2},
    {"%d", A_INT, .i = -42, .want = "-42", .ret = 3},
    {"%i", A_INT, .i = 7, .want = "7", .ret = 1},
    {"%d", A_INT, .i = INT_MAX, .want = "2147483647", .ret = 10},
    {"%d", A_INT, .i = INT_MIN, .want = "-2147483648", .ret = 11},
    {"%u", A_UINT, .u = 0, .want = "0", .ret = 1},
    {"%u", A_UINT, .u = UINT_MAX, .want = "4294967295", .ret = 10},
    {"%x", A_UINT, .u = 0xdeadbeef, .want = "deadbeef", .ret = 8},
    {"%X", A_UINT, .u = 0xdeadbeef, .want = "DEADBEEF", .ret = 8},
    {"%x", A_UINT, .u = 0, .want = "0", .ret = 1},
    /* A negative int through %x must not be sign-extended to 64 bits. */
    {"%x", A_INT, .i = -1, .want = "ffffffff", .ret = 8},
    {"%u", A_INT, .i = -1, .want = "4294967295", .ret = 10},

    /* Length modifiers l, ll, z. */
    {"%ld", A_LONG, .i = INT64_MIN, .want = "-9223372036854775808", .ret = 20},
    {"%ld", A_LONG, .i = INT64_MAX, .want = "9223372036854775807", .ret = 19},
    {"%li", A_LONG, .i = -1, .want = "-1", .ret = 2},
    {"%lu", A_ULONG, .u = UINT64_MAX, .want = "18446744073709551615", .ret = 20},
    {"%lx", A_ULONG, .u = 0x123456789abcdef0, .want = "123456789abcdef0", .ret = 16},
    {"%lX", A_ULONG, .u = 0xfedcba9876543210, .want = "FEDCBA9876543210", .ret = 16},
    {"%lld", A_LLONG, .i = LLONG_MIN, .want = "-9223372036854775808", .ret = 20},
    {"%llu", A_ULLONG, .u = ULLONG_MAX, .want = "18446744073709551615", .ret = 20},
    {"%llx", A_ULLONG, .u = 0x8000000000000000, .want = "8000000000000000", .ret = 16},
    {"%zu", A_SIZE, .u = SIZE_MAX, .want = "18446744073709551615", .ret = 20},
    {"%zx", A_SIZE, .u = 0x1000, .want = "1000", .ret = 4},
    {"%zd", A_SSIZE, .i = -5, .want = "-5", .ret = 2},

    /* Flags + space #, integer precision, hh and h. */
    {"%+d", A_INT, .i = 5, .want = "+5", .ret = 2},
    {"% d", A_INT, .i = 5, .want = " 5", .ret = 2},
    {"%+d", A_INT, .i = -5, .want = "-5", .ret = 2},
    {"%#x", A_UINT, .u = 255, .want = "0xff", .ret = 4},
    {"%#X", A_UINT, .u = 255, .want = "0XFF", .ret = 4},
    {"%#x", A_UINT, .u = 0, .want = "0", .ret = 1},
    {"%#o", A_UINT, .u = 8, .want = "010", .ret = 3},
    {"%o", A_UINT, .u = 8, .want = "10", .ret = 2},
    {"%.3d", A_INT, .i = 5, .want = "005", .ret = 3},
    {"%.3d", A_INT, .i = -5, .want = "-005", .ret = 4},
    {"%5.3d|", A_INT, .i = 5, .want = "  005|", .ret = 6},
    {"%05.3d|", A_INT, .i = 5, .want = "  005|", .ret = 6},
    {"%.0d|", A_INT, .i = 0, .want = "|", .ret = 1},
    {"%08.3x|", A_UINT, .u = 0xab, .want = "     0ab|", .ret = 9},
    {"%#010x", A_UINT, .u = 0xab, .want = "0x000000ab", .ret = 10},
    {"%hhd", A_INT, .i = 300, .want = "44", .ret = 2},
    {"%hd", A_INT, .i = 70000, .want = "4464", .ret = 4},
    {"%hu", A_INT, .i = -1, .want = "65535", .ret = 5},

    /* %p. */
    {"%p", A_PTR, .u = 0x1234, .want = "0x1234", .ret = 6},
    {"%p", A_PTR, .u = 0xffff800000001000, .want = "0xffff800000001000", .ret = 18},
    /* glibc prints "(nil)"; the kernel prints the number like any other. */
    {"%p", A_PTR, .u = 0, .want = "0x0", .ret = 3, .not_host = true},
    {"%10p|", A_PTR, .u = 0x1234, .want = "    0x1234|", .ret = 11},
    {"%-10p|", A_PTR, .u = 0x1234, .want = "0x1234    |", .ret = 11},
    {"%018p", A_PTR, .u = 0x1234, .want = "0x0000000000001234", .ret = 18},

    /* %s and %c. */
    {"%s", A_STR, .s = "abc", .want = "abc", .ret = 3},
    {"%s", A_STR, .s = "", .want = "", .ret = 0},
    {"%s", A_STR, .s = NULL, .want = "(null)", .ret = 6},
    /* glibc prints nothing when the precision cannot fit all of "(null)". */
    {"%.3s", A_STR, .s = NULL, .want = "(nu", .ret = 3, .not_host = true},
    {"<%s>", A_STR, .s = "mid", .want = "<mid>", .ret = 5},
    {"%c", A_INT, .i = 'A', .want = "A", .ret = 1},
    {"%5c", A_INT, .i = 'x', .want = "    x", .ret = 5},
    {"%-3c|", A_INT, .i = 'x', .want = "x  |", .ret = 4},
    {"[%s=%d]", A_STR_INT, .s = "smp", .i = 4, .want = "[smp=4]", .ret = 7},

    /* Width and the '-' and '0' flags. */
    {"%5d", A_INT, .i = 42, .want = "   42", .ret = 5},
    {"%-5d|", A_INT, .i = 42, .want = "42   |", .ret = 6},
    {"%05d", A_INT, .i = 42, .want = "00042", .ret = 5},
    {"%05d", A_INT, .i = -42, .want = "-0042", .ret = 5},
    {"%5d", A_INT, .i = -42, .want = "  -42", .ret = 5},
    {"%-05d|", A_INT, .i = -42, .want = "-42  |", .ret = 6},
    {"%2d", A_INT, .i = 12345, .want = "12345", .ret = 5},
    {"%010d", A_INT, .i = 1, .want = "0000000001", .ret = 10},
    {"%08x", A_UINT, .u = 0xbeef, .want = "0000beef", .ret = 8},
    {"%-8X|", A_UINT, .u = 0xbeef, .want = "BEEF    |", .ret = 9},
    {"%016lx", A_ULONG, .u = 0xbeef, .want = "000000000000beef", .ret = 16},
    {"%21ld", A_LONG, .i = INT64_MIN, .want = " -9223372036854775808", .ret = 21},
    {"%10s", A_STR, .s = "abc", .want = "       abc", .ret = 10},
    {"%-10s|", A_STR, .s = "abc", .want = "abc       |", .ret = 11},
    {"%2s", A_STR, .s = "abcdef", .want = "abcdef", .ret = 6},
    {"%*d", A_STAR_INT, .i = 5, .u = 42, .want = "   42", .ret = 5},
    {"%*d|", A_STAR_INT, .i = -5, .u = 42, .want = "42   |", .ret = 6},

    /* Precision for %s, written or taken from the arguments. */
    {"%.2s", A_STR, .s = "abcdef", .want = "ab", .ret = 2},
    {"%.0s", A_STR, .s = "abc", .want = "", .ret = 0},
    {"%.s", A_STR, .s = "abc", .want = "", .ret = 0},
    {"%.10s", A_STR, .s = "abc", .want = "abc", .ret = 3},
    {"%8.3s|", A_STR, .s = "abcdef", .want = "     abc|", .ret = 9},
    {"%-8.3s|", A_STR, .s = "abcdef", .want = "abc     |", .ret = 9},
    {"%.*s", A_STAR_STR, .i = 3, .s = "abcdef", .want = "abc", .ret = 3},
    {"%.*s", A_STAR_STR, .i = 0, .s = "abc", .want = "", .ret = 0},
    /* A negative precision from '*' counts as none. */
    {"%.*s", A_STAR_STR, .i = -1, .s = "abc", .want = "abc", .ret = 3},

    /* Malformed formats, undefined in C: a lone '%' or an unknown conversion is copied. */
    {"abc%", A_NONE, .want = "abc%", .ret = 4, .not_host = true},
    /* An unknown conversion ends formatting: the rest is copied, no argument read. */
    {"%y|%s|", A_STR, .s = "unused", .want = "%y|%s|", .ret = 6, .not_host = true},
    {"%q", A_NONE, .want = "%q", .ret = 2, .not_host = true},
};

/* Every row with room to spare: the text, the return, nothing written past the NUL. */
TEST(format_conversions)
{
	for (size_t n = 0; n < sizeof(conversions) / sizeof(conversions[0]); n++) {
		const struct format_row *r = &conversions[n];
		char what[64];
		char buf[128];

		snprintf(what, sizeof(what), "row %zu \"%s\"", n, r->fmt);
		memset(buf, 0x7f, sizeof(buf));
		int ret = call(format_snprintf, buf, sizeof(buf), r);
		CHECK_EQ_STR(buf, r->want, what);
		CHECK_EQ_INT(ret, r->ret, what);
		size_t end = strnlen(buf, sizeof(buf) - 1) + 1;
		for (size_t i = end; i < sizeof(buf); i++) {
			CHECK(buf[i] == 0x7f, "%s: byte %zu past the NUL was written", what, i);
		}
		if (!r->not_host) {
			char host[128];
			int host_ret = call(snprintf, host, sizeof(host), r);
			CHECK_EQ_STR(buf, host, what);
			CHECK_EQ_INT(ret, host_ret, what);
		}
	}
}

/* %c of a NUL writes the NUL and counts it, as in C. */
TEST(format_char_nul)
{
	char buf[8];

	memset(buf, 0x7f, sizeof(buf));
	CHECK_EQ_INT(format_snprintf(buf, sizeof(buf), "a%cb", 0), 3, "\"a%cb\" with NUL");
	CHECK(!memcmp(buf, "a\0b", 4), "buffer holds a, NUL, b, NUL");
}

struct truncation_row {
	struct format_row f; /* .want is what the small buffer holds */
	size_t size;	     /* 0: the buffer pointer is NULL */
};

static const struct truncation_row truncations[] = {
    {{"hello", A_NONE, .want = NULL, .ret = 5}, 0},
    {{"hello", A_NONE, .want = "", .ret = 5}, 1},
    {{"hello", A_NONE, .want = "he", .ret = 5}, 3},
    {{"hello", A_NONE, .want = "hell", .ret = 5}, 5},
    {{"hello", A_NONE, .want = "hello", .ret = 5}, 6},
    {{"%d", A_INT, .i = 123456, .want = "123", .ret = 6}, 4},
    {{"%d", A_INT, .i = -123456, .want = "-", .ret = 7}, 2},
    {{"%05d", A_INT, .i = 42, .want = "00", .ret = 5}, 3},
    {{"%-6s|", A_STR, .s = "ab", .want = "ab ", .ret = 7}, 4},
    {{"%s", A_STR, .s = "abcdef", .want = NULL, .ret = 6}, 0},
    {{"%ld", A_LONG, .i = INT64_MIN, .want = NULL, .ret = 20}, 0},
    {{"%ld", A_LONG, .i = INT64_MIN, .want = "-922", .ret = 20}, 5},
    {{"%p", A_PTR, .u = 0x1234, .want = "0x1", .ret = 6}, 4},
    {{"%.*s!", A_STAR_STR, .i = 2, .s = "abc", .want = "ab", .ret = 3}, 3},
};

/*
 * A buffer too small still ends in a NUL and the return is the full length.
 * Each buffer is malloc'ed to exactly its size so that AddressSanitizer
 * catches a write past its end.
 */
TEST(format_truncation)
{
	for (size_t n = 0; n < sizeof(truncations) / sizeof(truncations[0]); n++) {
		const struct truncation_row *r = &truncations[n];
		char what[64];
		char *buf = r->size ? malloc(r->size) : NULL;
		char host[128];

		snprintf(what, sizeof(what), "row %zu \"%s\" size %zu", n, r->f.fmt, r->size);
		if (buf) {
			memset(buf, 0x7f, r->size);
		}
		int ret = call(format_snprintf, buf, r->size, &r->f);
		int host_ret = call(snprintf, buf ? host : NULL, r->size, &r->f);
		CHECK_EQ_INT(ret, r->f.ret, what);
		CHECK_EQ_INT(ret, host_ret, what);
		if (buf && !memchr(buf, '\0', r->size)) {
			CHECK(false, "%s: no NUL in the buffer", what);
		} else if (buf) {
			CHECK_EQ_STR(buf, r->f.want, what);
			CHECK_EQ_STR(buf, host, what);
		}
		free(buf);
	}
}

TEST(format_precision_bounds_reading_a_string)
{
	/* Exactly three bytes, no NUL: ASan fails the test if %.3s reads a fourth. */
	char *abc = malloc(3);
	char out[8];

	if (!abc) {
		abort();
	}
	memcpy(abc, "abc", 3);
	CHECK_EQ_INT(format_snprintf(out, sizeof(out), "%.*s", 3, abc), 3, "%.*s");
	CHECK_EQ_STR(out, "abc", "%.*s");
	free(abc);
}
