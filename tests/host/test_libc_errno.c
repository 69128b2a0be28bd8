/*
 * Tests libc's strerror (libc/src/errno): every error of abi/errno.def
 * has its text, and any other number gets a message that names it.
 */
#include <limits.h>

#include "libc_host.h"
#include "test.h"

struct errno_row {
	int value;
	const char *text;
};

static const struct errno_row listed[] = {
#define ERRNO(name, value, text) {value, text},
#include "abi/errno.def"
#undef ERRNO
};

static const struct errno_row unlisted[] = {
    {0, "success"},
    {3, "unknown error 3"},
    {-SPOOR_ENOMEM, "unknown error -12"}, /* a raw -E* result is not an errno value */
    {1000, "unknown error 1000"},
    {INT_MIN, "unknown error -2147483648"},
    {INT_MAX, "unknown error 2147483647"},
};

TEST(libc_strerror)
{
	for (size_t i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
		CHECK_EQ_STR(spoor_strerror(listed[i].value), listed[i].text, "listed");
	}
	for (size_t i = 0; i < sizeof(unlisted) / sizeof(unlisted[0]); i++) {
		CHECK_EQ_STR(spoor_strerror(unlisted[i].value), unlisted[i].text, "unlisted");
	}
	CHECK_EQ_STR(spoor_strerror(SPOOR_ECAPKIND), "capability of the wrong kind", "ECAPKIND");
}
