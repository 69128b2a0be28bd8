/*
 * Tests libc's ctype.h (libc/src/ctype) against the host's functions in
 * the "C" locale, which these tests never change, for every argument C
 * allows: EOF and each unsigned char value.
 */
#include <ctype.h>
#include <stdio.h>

#include "libc_host.h"
#include "test.h"

struct ctype_pair {
	const char *name;
	int (*spoor)(int c);
	int (*host)(int c);
	int is_class; /* compare as true/false rather than as values */
};

static int host_isalnum(int c)
{
	return isalnum(c);
}
static int host_isalpha(int c)
{
	return isalpha(c);
}
static int host_isblank(int c)
{
	return isblank(c);
}
static int host_iscntrl(int c)
{
	return iscntrl(c);
}
static int host_isdigit(int c)
{
	return isdigit(c);
}
static int host_isgraph(int c)
{
	return isgraph(c);
}
static int host_islower(int c)
{
	return islower(c);
}
static int host_isprint(int c)
{
	return isprint(c);
}
static int host_ispunct(int c)
{
	return ispunct(c);
}
static int host_isspace(int c)
{
	return isspace(c);
}
static int host_isupper(int c)
{
	return isupper(c);
}
static int host_isxdigit(int c)
{
	return isxdigit(c);
}
static int host_tolower(int c)
{
	return tolower(c);
}
static int host_toupper(int c)
{
	return toupper(c);
}

/* The host's are macros, hence the wrappers above. */
static const struct ctype_pair pairs[] = {
    {"isalnum", spoor_isalnum, host_isalnum, 1}, {"isalpha", spoor_isalpha, host_isalpha, 1},
    {"isblank", spoor_isblank, host_isblank, 1}, {"iscntrl", spoor_iscntrl, host_iscntrl, 1},
    {"isdigit", spoor_isdigit, host_isdigit, 1}, {"isgraph", spoor_isgraph, host_isgraph, 1},
    {"islower", spoor_islower, host_islower, 1}, {"isprint", spoor_isprint, host_isprint, 1},
    {"ispunct", spoor_ispunct, host_ispunct, 1}, {"isspace", spoor_isspace, host_isspace, 1},
    {"isupper", spoor_isupper, host_isupper, 1}, {"isxdigit", spoor_isxdigit, host_isxdigit, 1},
    {"tolower", spoor_tolower, host_tolower, 0}, {"toupper", spoor_toupper, host_toupper, 0},
};

TEST(libc_ctype_matches_c_locale)
{
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct ctype_pair *p = &pairs[i];

		for (int c = EOF; c <= 255; c++) {
			int got = p->spoor(c), want = p->host(c);
			char what[32];

			if (p->is_class) {
				got = got != 0;
				want = want != 0;
			}
			snprintf(what, sizeof(what), "%s(%d)", p->name, c);
			CHECK_EQ_INT(got, want, what);
		}
	}
}
