/*
 * func_glob: see func_glob.h. The match is the classic one-star
 * backtrack: on a mismatch, the last '*' takes one more character, so it
 * runs in time pattern length x name length, never exponential.
 */
#include "common/func_glob.h"

#include "abi/trace_func.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

bool func_glob_valid(const char *p, size_t len)
{
	if (!len || len > TTRACE_FUNC_PATTERN_MAX) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (!name_char(p[i]) && p[i] != '*' && p[i] != '?') {
			return false;
		}
	}
	return true;
}

bool func_glob_match(const char *p, size_t len, const char *name)
{
	size_t pi = 0, ni = 0;
	size_t star = len, star_ni = 0; /* the last '*' seen and where its run ends; len: none */

	while (name[ni]) {
		if (pi < len && (p[pi] == '?' || p[pi] == name[ni])) {
			pi++;
			ni++;
		} else if (pi < len && p[pi] == '*') {
			star = pi++;
			star_ni = ni;
		} else if (star < len) {
			pi = star + 1;
			ni = ++star_ni;
		} else {
			return false;
		}
	}
	while (pi < len && p[pi] == '*') {
		pi++;
	}
	return pi == len;
}

bool func_glob_next(const char **at, const char *end, const char **p, size_t *len)
{
	const char *s = *at;

	while (s < end && *s == ' ') {
		s++;
	}
	const char *e = s;
	while (e < end && *e != ' ') {
		e++;
	}
	*at = e;
	*p = s;
	*len = (size_t)(e - s);
	return e > s;
}
