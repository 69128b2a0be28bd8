/*
 * The function tracer's patterns (common/func_glob.h): which are valid,
 * what they match, and how a list splits into them.
 */
#include <stdbool.h>
#include <string.h>

#include "abi/trace_func.h"
#include "common/func_glob.h"
#include "test.h"

TEST(func_glob_checks_patterns)
{
	static const struct {
		const char *pattern;
		bool valid;
	} rows[] = {
	    {"ipc_call", true},
	    {"ipc_*", true},
	    {"*", true},
	    {"?pc_c*l", true},
	    {"foo.cold", true},
	    {"", false},
	    {"ipc_[", false},
	    {"ipc call", false},
	    {"ipc-call", false},
	    {"a/b", false},
	    {"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc", true},
	    {"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd", false},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK(func_glob_valid(rows[i].pattern, strlen(rows[i].pattern)) == rows[i].valid,
		      rows[i].pattern);
	}
	CHECK(strlen(rows[10].pattern) == TTRACE_FUNC_PATTERN_MAX, "the longest row");
}

TEST(func_glob_matches_whole_names)
{
	static const struct {
		const char *pattern, *name;
		bool match;
	} rows[] = {
	    {"ipc_call", "ipc_call", true},
	    {"ipc_call", "ipc_call2", false},
	    {"ipc_call", "sys_ipc_call", false},
	    {"ipc_*", "ipc_call", true},
	    {"ipc_*", "ipc_", true},
	    {"ipc_*", "sys_ipc_call", false},
	    {"*ipc*", "sys_ipc_call", true},
	    {"*", "anything", true},
	    {"*_call", "ipc_fast_call", true},
	    {"*_call", "ipc_call_x", false},
	    {"?pc_call", "ipc_call", true},
	    {"?pc_call", "pc_call", false},
	    {"a*b*c", "aXbYbZc", true},
	    {"a*b*c", "aXbYbZ", false},
	    {"**a", "ba", true},
	    {"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK(func_glob_match(rows[i].pattern, strlen(rows[i].pattern), rows[i].name) ==
			  rows[i].match,
		      rows[i].pattern);
	}
}

TEST(func_glob_splits_lists_at_spaces)
{
	const char *list = "  ipc_* sched_switch   x ";
	const char *at = list, *p;
	const char *want[] = {"ipc_*", "sched_switch", "x"};
	size_t len, n = 0;

	while (func_glob_next(&at, list + strlen(list), &p, &len)) {
		CHECK(n < 3 && len == strlen(want[n]) && !strncmp(p, want[n], len),
		      want[n < 3 ? n : 0]);
		n++;
	}
	CHECK(n == 3, "three patterns");
	at = "";
	CHECK(!func_glob_next(&at, at, &p, &len), "an empty list has none");
}
