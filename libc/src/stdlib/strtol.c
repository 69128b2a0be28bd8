/*
 * strtol, strtoul, strtoll, strtoull and atoi. One scanner reads the
 * magnitude as an unsigned long long and notes whether it overflowed; each
 * function then applies its own type's range. long and long long are both
 * 64 bits here (LP64), but each function still checks against its own
 * limits, so none depends on that.
 *
 * As C17 says: no "0b" prefix, and a "0x" not followed by a hex digit
 * is the number 0 with the x left unread.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#define BASE_MAX 36 /* digits 0-9 then a-z */

struct scan {
	unsigned long long magnitude;
	bool negative;
	bool overflow; /* the digits exceed ULLONG_MAX; magnitude is then meaningless */
	bool valid;    /* the base was acceptable */
};

/* The value of digit c, or BASE_MAX (too large for any base) if c is no digit. */
static int digit_value(int c)
{
	if (isdigit(c)) {
		return c - '0';
	}
	if (isalpha(c)) {
		return tolower(c) - 'a' + 10;
	}
	return BASE_MAX;
}

static bool hex_prefix(const char *s)
{
	return s[0] == '0' && tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2]);
}

static struct scan scan(const char *s, char **end, int base)
{
	struct scan r = {.valid = true};
	const char *p = s;
	const char *digits;

	if (base < 0 || base == 1 || base > BASE_MAX) {
		r.valid = false;
		if (end) {
			*end = (char *)s;
		}
		return r;
	}
	while (isspace((unsigned char)*p)) {
		p++;
	}
	if (*p == '+' || *p == '-') {
		r.negative = *p == '-';
		p++;
	}
	if ((base == 0 || base == 16) && hex_prefix(p)) {
		base = 16;
		p += 2;
	} else if (base == 0) {
		base = *p == '0' ? 8 : 10;
	}
	digits = p;
	for (int d; (d = digit_value((unsigned char)*p)) < base; p++) {
		if (__builtin_mul_overflow(r.magnitude, (unsigned)base, &r.magnitude) ||
		    __builtin_add_overflow(r.magnitude, (unsigned)d, &r.magnitude)) {
			r.overflow = true;
		}
	}
	if (end) {
		*end = (char *)(p == digits ? s : p);
	}
	return r;
}

/* The value of r in [min, max]; out of range gives the nearer limit and ERANGE. */
static long long to_signed(struct scan r, long long min, long long max)
{
	/* The magnitude of min, computed without overflowing long long. */
	unsigned long long limit =
	    r.negative ? (unsigned long long)-(min + 1) + 1 : (unsigned long long)max;

	if (!r.valid) {
		errno = EINVAL;
		return 0;
	}
	if (r.overflow || r.magnitude > limit) {
		errno = ERANGE;
		return r.negative ? min : max;
	}
	if (r.negative) {
		return r.magnitude == 0 ? 0 : -(long long)(r.magnitude - 1) - 1;
	}
	return (long long)r.magnitude;
}

/*
 * As C says, a minus sign negates the value in the unsigned type (max is
 * that type's all-ones value); only the digits can overflow.
 */
static unsigned long long to_unsigned(struct scan r, unsigned long long max)
{
	if (!r.valid) {
		errno = EINVAL;
		return 0;
	}
	if (r.overflow || r.magnitude > max) {
		errno = ERANGE;
		return max;
	}
	return r.negative ? (0 - r.magnitude) & max : r.magnitude;
}

long strtol(const char *restrict s, char **restrict end, int base)
{
	return to_signed(scan(s, end, base), LONG_MIN, LONG_MAX);
}

long long strtoll(const char *restrict s, char **restrict end, int base)
{
	return to_signed(scan(s, end, base), LLONG_MIN, LLONG_MAX);
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
	return to_unsigned(scan(s, end, base), ULONG_MAX);
}

unsigned long long strtoull(const char *restrict s, char **restrict end, int base)
{
	return to_unsigned(scan(s, end, base), ULLONG_MAX);
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}
