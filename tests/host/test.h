/*
 * test: the host unit-test framework. A file defines tests with TEST(name);
 * each registers itself before main() runs, and runner.c runs them all in
 * the order they were defined, file by file. CHECK() records a failure with
 * its file, line and a printf-style message, then lets the test go on, so
 * one run shows every broken row of a table rather than the first.
 *
 * Messages are formatted with the host's own printf family, never with the
 * kernel's format.c, which is itself under test.
 */
#ifndef SPOOR_TESTS_HOST_TEST_H
#define SPOOR_TESTS_HOST_TEST_H

#include <stdint.h>

struct test {
	const char *name;
	void (*fn)(void);
	struct test *next;
};

/* Appends t to the list runner.c walks; called by TEST()'s constructor. */
void test_register(struct test *t);

/* Records one failure of the running test and prints it at once. */
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define TEST(id)                                                                                   \
	static void test_##id(void);                                                               \
	static struct test test_entry_##id = {.name = #id, .fn = test_##id};                       \
	__attribute__((constructor)) static void test_register_##id(void)                          \
	{                                                                                          \
		test_register(&test_entry_##id);                                                   \
	}                                                                                          \
	static void test_##id(void)

/* CHECK(cond, fmt, ...): on a false cond, records fmt's message and goes on. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			test_fail(__FILE__, __LINE__, __VA_ARGS__);                                \
		}                                                                                  \
	} while (0)

/* The common comparisons, with both sides in the message; what names the row. */
#define CHECK_EQ_INT(got, want, what)                                                              \
	do {                                                                                       \
		int64_t got_ = (got), want_ = (want);                                              \
		CHECK(got_ == want_, "%s: %s is %lld, expected %lld", (what), #got,                \
		      (long long)got_, (long long)want_);                                          \
	} while (0)

#define CHECK_EQ_UINT(got, want, what)                                                             \
	do {                                                                                       \
		uint64_t got_ = (got), want_ = (want);                                             \
		CHECK(got_ == want_, "%s: %s is %llu, expected %llu", (what), #got,                \
		      (unsigned long long)got_, (unsigned long long)want_);                        \
	} while (0)

#define CHECK_EQ_STR(got, want, what)                                                              \
	do {                                                                                       \
		const char *got_ = (got), *want_ = (want);                                         \
		CHECK(test_str_equal(got_, want_), "%s: %s is \"%s\", expected \"%s\"", (what),    \
		      #got, got_ ? got_ : "(NULL)", want_ ? want_ : "(NULL)");                     \
	} while (0)

/* True if both are NULL or both hold the same characters. */
int test_str_equal(const char *a, const char *b);

#endif
