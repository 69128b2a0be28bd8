/*
 * The format and matching cases of Linux's user_events selftests
 * (tools/testing/selftests/user_events/dyn_test.c), each with Linux's
 * verdict, which Spoor's parser must give too: a description Linux
 * registers parses, one it refuses does not; two that Linux registers
 * under one name as the same event are uevent_def_same(), two it answers
 * -EADDRINUSE for are not. Then the limit on an array size's text that
 * Linux's parser has (the size and its ']' must fit in 8 bytes with the
 * NUL), at both sides of it. The descriptions are Linux's without the
 * "u:" of its dynamic-event syntax, which registration does not take.
 */
#include <stdbool.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/uevent.h"
#include "common/uevent_parse.h"
#include "test.h"

#define WHY_SIZE 160

static const struct {
	const char *desc;
	bool parses;
} formats[] = {
    /* basic_types */
    {"__test_event u64 a", true},
    {"__test_event u32 a", true},
    {"__test_event u16 a", true},
    {"__test_event u8 a", true},
    {"__test_event char a", true},
    {"__test_event unsigned char a", true},
    {"__test_event int a", true},
    {"__test_event unsigned int a", true},
    {"__test_event short a", true},
    {"__test_event unsigned short a", true},
    {"__test_event char[20] a", true},
    {"__test_event unsigned char[20] a", true},
    {"__test_event char[0x14] a", true},
    {"__test_event unsigned char[0x14] a", true},
    {"__test_event char[aa] a", false},		     /* a size that is no number */
    {"__test_event char[9999] a", false},	     /* over 1024 */
    {"__test_event char[0x0000000000001] a", false}, /* a size text too long */
    /* loc_types */
    {"__test_event __data_loc char[] a", true},
    {"__test_event __data_loc unsigned char[] a", true},
    {"__test_event __rel_loc char[] a", true},
    {"__test_event __rel_loc unsigned char[] a", true},
    /* size_types */
    {"__test_event struct custom a 20", true},
    {"__test_event struct custom a", false}, /* a struct without its size */
    {"__test_event char a 20", false},	     /* a size on what is not a struct */
    /* The size text's limit: six characters inside the brackets. */
    {"__test_event char[0x0014] a", true},
    {"__test_event char[0x00014] a", false},
};

static const struct {
	const char *first, *second;
	bool same;
} matches[] = {
    {"__test_event u32 a", "__test_event u32 a", true},
    {"__test_event u32 a; u32 b", "__test_event u32 a; u32 b", true},
    {"__test_event u32 a; u32 b", "__test_event u32 a; u32 b;", true}, /* a dangling ';' */
    {"__test_event u32 a", "__test_event u32 b", false},
    {"__test_event u32 a; u32 b", "__test_event u32 b; u32 a", false},
    {"__test_event u64 a; u64 b", "__test_event u32 a; u32 b", false},
    {"__test_event struct my_struct a 20", "__test_event struct my_struct a 20", true},
    {"__test_event struct my_struct a 20", "__test_event struct my_struct b 20", false},
    {"__test_event struct my_struct a 20", "__test_event struct my_struct a 21", false},
};

TEST(uevent_linux_selftest_formats_get_linux_verdict)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct uevent_def def;
		char why[WHY_SIZE] = "";
		int rc =
		    uevent_parse(formats[i].desc, strlen(formats[i].desc), &def, why, sizeof(why));

		CHECK((rc == 0) == formats[i].parses, "%s: %s (%d: %s)", formats[i].desc,
		      formats[i].parses ? "refused" : "accepted", rc, why);
	}
}

TEST(uevent_linux_selftest_matches_get_linux_verdict)
{
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		struct uevent_def a, b;

		CHECK_EQ_INT(uevent_parse(matches[i].first, strlen(matches[i].first), &a, NULL, 0),
			     0, matches[i].first);
		CHECK_EQ_INT(
		    uevent_parse(matches[i].second, strlen(matches[i].second), &b, NULL, 0), 0,
		    matches[i].second);
		CHECK(uevent_def_same(&a, &b) == matches[i].same, "'%s' and '%s': %s",
		      matches[i].first, matches[i].second,
		      matches[i].same ? "differ" : "are the same event");
	}
}

TEST(uevent_array_size_text_over_linux_limit_says_so)
{
	static const char desc[] = "ev char[0x00014] s";
	struct uevent_def def;
	char why[WHY_SIZE];

	CHECK_EQ_INT(uevent_parse(desc, strlen(desc), &def, why, sizeof(why)), -EINVAL, desc);
	CHECK(strstr(why, "array size '0x00014' in field 1 is longer than 6 characters"), "%s",
	      why);
}
