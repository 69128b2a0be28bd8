/*
 * Tests libc's string.h (libc/src/string). The copies and memset run
 * over every alignment of source and destination and every short length,
 * against the host's functions on a twin buffer, with guard bytes around
 * the destination; the string functions are tables of inputs and the
 * answer C defines for each. Comparisons are checked for their sign only,
 * which is all C promises.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_host.h"
#include "test.h"

#define MAX_OFFSET 16 /* two words: every alignment, and word loops with a head and a tail */
#define MAX_LEN	   72
#define BUF	   (2 * MAX_OFFSET + MAX_LEN + 16)

static void fill_pattern(uint8_t *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		buf[i] = (uint8_t)(seed * 31 + i * 7 + 1);
	}
}

TEST(libc_memcpy_every_alignment)
{
	uint8_t src[BUF], got[BUF], want[BUF];

	fill_pattern(src, BUF, 1);
	for (size_t so = 0; so < MAX_OFFSET; so++) {
		for (size_t d = 0; d < MAX_OFFSET; d++) {
			for (size_t n = 0; n <= MAX_LEN; n++) {
				fill_pattern(got, BUF, 2);
				fill_pattern(want, BUF, 2);
				memcpy(want + d, src + so, n);
				CHECK(spoor_memcpy(got + d, src + so, n) == got + d, "return");
				CHECK(memcmp(got, want, BUF) == 0, "memcpy src+%zu dst+%zu len %zu",
				      so, d, n);
			}
		}
	}
}

/* Both directions of overlap, and none, within one buffer. */
TEST(libc_memmove_every_overlap)
{
	uint8_t got[BUF], want[BUF];

	for (size_t so = 0; so < 2 * MAX_OFFSET; so++) {
		for (size_t d = 0; d < 2 * MAX_OFFSET; d++) {
			for (size_t n = 0; n <= MAX_LEN; n++) {
				fill_pattern(got, BUF, 3);
				fill_pattern(want, BUF, 3);
				memmove(want + d, want + so, n);
				CHECK(spoor_memmove(got + d, got + so, n) == got + d, "return");
				CHECK(memcmp(got, want, BUF) == 0,
				      "memmove src+%zu dst+%zu len %zu", so, d, n);
			}
		}
	}
}

TEST(libc_memset_every_alignment)
{
	uint8_t got[BUF], want[BUF];

	for (size_t d = 0; d < MAX_OFFSET; d++) {
		for (size_t n = 0; n <= MAX_LEN; n++) {
			fill_pattern(got, BUF, 4);
			fill_pattern(want, BUF, 4);
			memset(want + d, 0xab, n);
			/* Only the low byte of c counts. */
			CHECK(spoor_memset(got + d, 0x12ab, n) == got + d, "return");
			CHECK(memcmp(got, want, BUF) == 0, "memset dst+%zu len %zu", d, n);
		}
	}
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

struct compare_row {
	const char *a, *b;
	size_t n; /* strncmp's and memcmp's limit */
	int cmp;  /* sign of strcmp(a, b) */
	int ncmp; /* sign of strncmp(a, b, n) and memcmp(a, b, n) */
};

static const struct compare_row compare_rows[] = {
    {"", "", 0, 0, 0},		 {"abc", "abc", 4, 0, 0},
    {"abc", "abd", 3, -1, -1},	 {"abd", "abc", 2, 1, 0},
    {"ab", "abc", 2, -1, 0},	 {"abc", "ab", 3, 1, 1},
    {"a\x80", "a\x7f", 2, 1, 1}, /* bytes compare as unsigned char */
    {"\xff", "\x01", 1, 1, 1},	 {"x", "y", 0, -1, 0},
    {"abc", "abc", 10, 0, 0},	 /* strncmp stops at the terminator, whatever n */
    {"ab\0x", "ab\0y", 4, 0, 0}, /* and does not look past it */
};

TEST(libc_compare)
{
	for (size_t i = 0; i < sizeof(compare_rows) / sizeof(compare_rows[0]); i++) {
		const struct compare_row *r = &compare_rows[i];
		char what[48];

		snprintf(what, sizeof(what), "row %zu \"%s\" \"%s\" %zu", i, r->a, r->b, r->n);
		CHECK_EQ_INT(sign(spoor_strcmp(r->a, r->b)), r->cmp, what);
		CHECK_EQ_INT(sign(spoor_strncmp(r->a, r->b, r->n)), r->ncmp, what);
		/* memcmp reads n bytes of both: only rows where both strings have them. */
		if (r->n <= strlen(r->a) + 1 && r->n <= strlen(r->b) + 1) {
			CHECK_EQ_INT(sign(spoor_memcmp(r->a, r->b, r->n)), r->ncmp, what);
		}
	}
}

struct search_row {
	const char *s;
	int c;
	int chr;  /* offset strchr finds, -1 for NULL */
	int rchr; /* offset strrchr finds */
};

static const struct search_row search_rows[] = {
    {"hello", 'l', 2, 3},   {"hello", 'h', 0, 0},     {"hello", 'z', -1, -1},
    {"hello", '\0', 5, 5},  {"", '\0', 0, 0},	      {"", 'a', -1, -1},
    {"a\xe9z", 0xe9, 1, 1}, {"abc", 'a' + 256, 0, 0}, /* c converts to char */
};

TEST(libc_strchr_strrchr_memchr)
{
	for (size_t i = 0; i < sizeof(search_rows) / sizeof(search_rows[0]); i++) {
		const struct search_row *r = &search_rows[i];
		const char *chr = spoor_strchr(r->s, r->c), *rchr = spoor_strrchr(r->s, r->c);
		const char *mem = spoor_memchr(r->s, r->c, strlen(r->s) + 1);
		char what[32];

		snprintf(what, sizeof(what), "row %zu '%c'", i, r->c);
		CHECK_EQ_INT(chr ? chr - r->s : -1, r->chr, what);
		CHECK_EQ_INT(rchr ? rchr - r->s : -1, r->rchr, what);
		CHECK_EQ_INT(mem ? mem - r->s : -1, r->chr, what);
	}
	CHECK(spoor_memchr("abc", 'c', 2) == NULL, "memchr stops at n");
	CHECK(spoor_memchr("a\0c", 'c', 3) != NULL, "memchr passes NULs");
}

struct strstr_row {
	const char *haystack, *needle;
	int at; /* -1 for NULL */
};

static const struct strstr_row strstr_rows[] = {
    {"hello world", "world", 6}, {"hello", "", 0},    {"", "", 0},	   {"", "a", -1},
    {"aaab", "aab", 1},		 {"abc", "abcd", -1}, {"abcabc", "ca", 2}, {"abc", "c", 2},
    {"ab", "b\x01", -1},
};

TEST(libc_strstr)
{
	for (size_t i = 0; i < sizeof(strstr_rows) / sizeof(strstr_rows[0]); i++) {
		const struct strstr_row *r = &strstr_rows[i];
		const char *got = spoor_strstr(r->haystack, r->needle);

		CHECK_EQ_INT(got ? got - r->haystack : -1, r->at, r->needle);
	}
}

struct span_row {
	const char *s, *set;
	size_t spn, cspn;
};

static const struct span_row span_rows[] = {
    {"  \tword", " \t", 3, 0}, {"abc", "", 0, 3},      {"", "abc", 0, 0},
    {"aabbc", "ab", 4, 0},     {"xyz,abc", ",", 0, 3}, {"abc", "cba", 3, 0},
};

TEST(libc_strspn_strcspn)
{
	for (size_t i = 0; i < sizeof(span_rows) / sizeof(span_rows[0]); i++) {
		const struct span_row *r = &span_rows[i];

		CHECK_EQ_UINT(spoor_strspn(r->s, r->set), r->spn, r->s);
		CHECK_EQ_UINT(spoor_strcspn(r->s, r->set), r->cspn, r->s);
	}
}

TEST(libc_strlen_strnlen)
{
	static const char *const strings[] = {"", "a", "hello", "0123456789abcdefghij"};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		size_t n = strlen(strings[i]);

		CHECK_EQ_UINT(spoor_strlen(strings[i]), n, strings[i]);
		CHECK_EQ_UINT(spoor_strnlen(strings[i], 100), n, strings[i]);
		CHECK_EQ_UINT(spoor_strnlen(strings[i], n / 2), n / 2, strings[i]);
	}
	/* strnlen reads no further than max: no terminator needed. */
	CHECK_EQ_UINT(spoor_strnlen((const char[3]){'a', 'b', 'c'}, 3), 3, "unterminated");
}

TEST(libc_strcpy_strcat_strncpy)
{
	char buf[16];

	CHECK(spoor_strcpy(buf, "abc") == buf, "strcpy return");
	CHECK_EQ_STR(buf, "abc", "strcpy");
	CHECK(spoor_strcat(buf, "def") == buf, "strcat return");
	CHECK_EQ_STR(buf, "abcdef", "strcat");
	spoor_strcat(buf, "");
	CHECK_EQ_STR(buf, "abcdef", "strcat of nothing");

	memset(buf, 'x', sizeof(buf));
	CHECK(spoor_strncpy(buf, "ab", 6) == buf, "strncpy return");
	CHECK(memcmp(buf, "ab\0\0\0\0xx", 8) == 0, "strncpy pads with NULs to n, no further");
	memset(buf, 'x', sizeof(buf));
	spoor_strncpy(buf, "abcdef", 3);
	CHECK(memcmp(buf, "abcx", 4) == 0, "strncpy of a longer source leaves no terminator");
}

#define MAX_TOKENS 5

struct strtok_row {
	const char *s, *delim;
	const char *tokens[MAX_TOKENS + 1]; /* NULL after the last */
};

static const struct strtok_row strtok_rows[] = {
    {"a b c", " ", {"a", "b", "c"}},
    {"  lead and trail  ", " ", {"lead", "and", "trail"}},
    {"a,,b;c", ",;", {"a", "b", "c"}},
    {"", " ", {NULL}},
    {"   ", " ", {NULL}},
    {"one", "", {"one"}},
    {"run trace on mem", " \t", {"run", "trace", "on", "mem"}},
};

TEST(libc_strtok_r)
{
	for (size_t i = 0; i < sizeof(strtok_rows) / sizeof(strtok_rows[0]); i++) {
		const struct strtok_row *r = &strtok_rows[i];
		char buf[32], *save = NULL;
		const char *tok;
		int n = 0;

		snprintf(buf, sizeof(buf), "%s", r->s);
		for (tok = spoor_strtok_r(buf, r->delim, &save); tok;
		     tok = spoor_strtok_r(NULL, r->delim, &save)) {
			if (n == MAX_TOKENS || !test_str_equal(tok, r->tokens[n])) {
				break;
			}
			n++;
		}
		CHECK(!tok && !r->tokens[n], "row %zu: token %d is \"%s\", expected \"%s\"", i, n,
		      tok ? tok : "(none)", r->tokens[n] ? r->tokens[n] : "(none)");
		CHECK(spoor_strtok_r(NULL, r->delim, &save) == NULL, "row %zu: done stays done", i);
	}
}

TEST(libc_strdup)
{
	char *copy = spoor_strdup("trace on mem");

	CHECK(copy != NULL, "strdup failed");
	CHECK_EQ_STR(copy, "trace on mem", "strdup");
	spoor_free(copy);
	copy = spoor_strdup("");
	CHECK(copy && copy[0] == '\0', "strdup of empty string");
	spoor_free(copy);
}
