/*
 * Tests libc's strtol family (libc/src/stdlib/strtol.c). A table holds
 * the cases C spells out (prefixes, signs, the limits and one past them,
 * bad bases, no digits at all); then random strings in random bases are
 * run through both libc and the host's glibc, which must agree on the
 * value, the end pointer and ERANGE.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libc_host.h"
#include "rand.h"
#include "test.h"

struct strtol_row {
	const char *s;
	int base;
	int end;	 /* offset *end points at */
	long l;		 /* strtol's and strtoll's value */
	int lerr;	 /* their errno, 0 for unchanged */
	unsigned long u; /* strtoul's and strtoull's value */
	int uerr;
};

#define R SPOOR_ERANGE

static const struct strtol_row rows[] = {
    {"0", 10, 1, 0, 0, 0, 0},
    {"42", 10, 2, 42, 0, 42, 0},
    {"  -42xyz", 10, 5, -42, 0, -42ul, 0},
    {"\t\n\v\f\r +7", 0, 8, 7, 0, 7, 0},
    {"0x1F", 0, 4, 31, 0, 31, 0},
    {"0X1f", 16, 4, 31, 0, 31, 0},
    {"1f", 16, 2, 31, 0, 31, 0},
    {"-0x10", 0, 5, -16, 0, -16ul, 0},
    {"017", 0, 3, 15, 0, 15, 0},
    {"019", 0, 2, 1, 0, 1, 0},
    {"08", 0, 1, 0, 0, 0, 0},
    {"017", 10, 3, 17, 0, 17, 0},
    {"Zz", 36, 2, 35 * 36 + 35, 0, 35 * 36 + 35, 0},
    {"101", 2, 3, 5, 0, 5, 0},
    {"102", 2, 2, 2, 0, 2, 0},
    {"1_000", 10, 1, 1, 0, 1, 0},
    /* "0x" without a hex digit after it is the number 0; the x is not read. */
    {"0x", 0, 1, 0, 0, 0, 0},
    {"0x", 16, 1, 0, 0, 0, 0},
    {"0xg", 16, 1, 0, 0, 0, 0},
    {"0x 1", 0, 1, 0, 0, 0, 0},
    /* C17 has no binary prefix. */
    {"0b1", 0, 1, 0, 0, 0, 0},
    {"0b1", 2, 1, 0, 0, 0, 0},
    /* No digits: *end is s itself, even after white space and a sign. */
    {"", 10, 0, 0, 0, 0, 0},
    {"   ", 10, 0, 0, 0, 0, 0},
    {"-", 10, 0, 0, 0, 0, 0},
    {"+ 1", 10, 0, 0, 0, 0, 0},
    {"  x", 16, 0, 0, 0, 0, 0},
    {"--1", 10, 0, 0, 0, 0, 0},
    /* The limits, and one past them. */
    {"9223372036854775807", 10, 19, LONG_MAX, 0, 9223372036854775807ul, 0},
    {"9223372036854775808", 10, 19, LONG_MAX, R, 9223372036854775808ul, 0},
    {"-9223372036854775808", 10, 20, LONG_MIN, 0, 9223372036854775808ul, 0},
    {"-9223372036854775809", 10, 20, LONG_MIN, R, 9223372036854775807ul, 0},
    {"0x7fffffffffffffff", 0, 18, LONG_MAX, 0, LONG_MAX, 0},
    {"18446744073709551615", 10, 20, LONG_MAX, R, ULONG_MAX, 0},
    {"0xffffffffffffffff", 16, 18, LONG_MAX, R, ULONG_MAX, 0},
    {"18446744073709551616", 10, 20, LONG_MAX, R, ULONG_MAX, R},
    {"-18446744073709551615", 10, 21, LONG_MIN, R, 1, 0},
    {"-18446744073709551616", 10, 21, LONG_MIN, R, ULONG_MAX, R},
    {"-1", 10, 2, -1, 0, ULONG_MAX, 0},
    /* Overflow goes on reading digits: *end is past all of them. */
    {"99999999999999999999999999999abc", 10, 29, LONG_MAX, R, ULONG_MAX, R},
    {"1111111111111111111111111111111111111111111111111111111111111111", 2, 64, LONG_MAX, R,
     ULONG_MAX, 0},
    /* Bad bases. */
    {"10", 1, 0, 0, SPOOR_EINVAL, 0, SPOOR_EINVAL},
    {"10", 37, 0, 0, SPOOR_EINVAL, 0, SPOOR_EINVAL},
    {"10", -1, 0, 0, SPOOR_EINVAL, 0, SPOOR_EINVAL},
};

#undef R

TEST(libc_strtol_rows)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct strtol_row *r = &rows[i];
		char what[80], *end;

		snprintf(what, sizeof(what), "row %zu \"%s\" base %d", i, r->s, r->base);
		spoor_errno = 0;
		CHECK_EQ_INT(spoor_strtol(r->s, &end, r->base), r->l, what);
		CHECK_EQ_INT(end - r->s, r->end, what);
		CHECK_EQ_INT(spoor_errno, r->lerr, what);

		spoor_errno = 0;
		CHECK_EQ_INT(spoor_strtoll(r->s, &end, r->base), r->l, what);
		CHECK_EQ_INT(end - r->s, r->end, what);
		CHECK_EQ_INT(spoor_errno, r->lerr, what);

		spoor_errno = 0;
		CHECK_EQ_UINT(spoor_strtoul(r->s, &end, r->base), r->u, what);
		CHECK_EQ_INT(end - r->s, r->end, what);
		CHECK_EQ_INT(spoor_errno, r->uerr, what);

		spoor_errno = 0;
		CHECK_EQ_UINT(spoor_strtoull(r->s, NULL, r->base), r->u, what);
		CHECK_EQ_INT(spoor_errno, r->uerr, what);
	}
}

TEST(libc_strtol_leaves_errno_alone_on_success)
{
	spoor_errno = SPOOR_EBUSY;
	spoor_strtol("12", NULL, 10);
	spoor_strtoull("12", NULL, 10);
	CHECK_EQ_INT(spoor_errno, SPOOR_EBUSY, "errno after good conversions");
}

TEST(libc_atoi)
{
	CHECK_EQ_INT(spoor_atoi("  123abc"), 123, "atoi");
	CHECK_EQ_INT(spoor_atoi("-5"), -5, "atoi");
	CHECK_EQ_INT(spoor_atoi(""), 0, "atoi");
	CHECK_EQ_INT(spoor_atoi("0x10"), 0, "atoi is base 10");
	CHECK_EQ_INT(spoor_atoi("010"), 10, "atoi is base 10");
	CHECK_EQ_INT(spoor_abs(-7), 7, "abs");
	CHECK_EQ_INT(spoor_abs(7), 7, "abs");
	CHECK_EQ_INT(spoor_abs(INT_MIN + 1), INT_MAX, "abs");
}

/*
 * Random strings weighted toward what parsers trip on: signs, prefixes,
 * digits of every base and overflow-sized runs of them. No 'b' or 'B':
 * glibc 2.38 and later read "0b" as a prefix when built for C23.
 */
static void random_number(char *buf, size_t size, uint64_t *rng)
{
	static const char alphabet[] = " \t+-0000111999xXaAfFgzZ78";
	size_t len = test_random(rng) % (size - 1);

	for (size_t i = 0; i < len; i++) {
		buf[i] = alphabet[test_random(rng) % (sizeof(alphabet) - 1)];
	}
	buf[len] = '\0';
}

#define DIFFERENTIAL_RUNS 50000

/* What one conversion gave: the value (as unsigned), where it stopped, and ERANGE. */
struct conversion {
	unsigned long long value;
	ptrdiff_t end;
	bool range;
};

/*
 * Converts s in base with Spoor's strtol (is_signed) or strtoull and with
 * glibc's, and records a failure naming both if they differ. Returns true
 * if they agree.
 */
static bool same_as_glibc(const char *s, int base, bool is_signed)
{
	struct conversion spoor, host;
	char *end, *host_end;

	spoor_errno = 0;
	errno = 0;
	if (is_signed) {
		spoor.value = (unsigned long long)spoor_strtol(s, &end, base);
		host.value = (unsigned long long)strtol(s, &host_end, base);
	} else {
		spoor.value = spoor_strtoull(s, &end, base);
		host.value = strtoull(s, &host_end, base);
	}
	spoor.end = end - s;
	spoor.range = spoor_errno == SPOOR_ERANGE;
	host.end = host_end - s;
	host.range = errno == ERANGE;
	if (spoor.value == host.value && spoor.end == host.end && spoor.range == host.range) {
		return true;
	}
	CHECK(false, "%s(\"%s\", %d): %#llx end %td range %d, glibc %#llx %td %d",
	      is_signed ? "strtol" : "strtoull", s, base, spoor.value, spoor.end, spoor.range,
	      host.value, host.end, host.range);
	return false;
}

TEST(libc_strtol_matches_glibc)
{
	static const int bases[] = {0, 2, 8, 10, 16, 36};
	uint64_t rng = 0xba5e0001;
	int failures = 0;

	for (int run = 0; run < DIFFERENTIAL_RUNS && failures < 10; run++) {
		char s[28];
		int base =
		    run % 2 ? bases[test_random(&rng) % 6] : 2 + (int)(test_random(&rng) % 35);

		random_number(s, sizeof(s), &rng);
		failures += !same_as_glibc(s, base, true);
		failures += !same_as_glibc(s, base, false);
	}
}
