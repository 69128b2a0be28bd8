/*
 * runner: main() for the host unit tests. Runs every registered test,
 * prints each failure as it happens and then one summary line,
 * "N passed, M failed", where N and M count test functions: a TEST() with
 * any failed CHECK() counts once as failed. The exit status is 0 only when
 * nothing failed. Stopped by SIGTERM (make test-host's time bound,
 * tests/host/bounded), it names the test that was running.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

static struct test *head;
static struct test **tail = &head;
static const struct test *current;
static int current_failures;

/*
 * UBSan reports and carries on by default, which would let undefined
 * behaviour in the code under test pass unnoticed; make it abort instead.
 * The sanitizer runtime calls this hook when it starts.
 */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

void test_register(struct test *t)
{
	/* Append so tests run in the order they appear in each file. */
	t->next = NULL;
	*tail = t;
	tail = &t->next;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	current_failures++;
	printf("FAIL %s: %s:%d: ", current ? current->name : "?", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int test_str_equal(const char *a, const char *b)
{
	if (!a || !b) {
		return a == b;
	}
	return strcmp(a, b) == 0;
}

/* Names the test a hang stopped; only async-signal-safe calls. */
static void stopped(int sig)
{
	static const char what[] = "STOPPED in test ";
	const char *name = current ? current->name : "?";

	(void)!write(STDOUT_FILENO, what, sizeof(what) - 1);
	(void)!write(STDOUT_FILENO, name, strlen(name));
	(void)!write(STDOUT_FILENO, "\n", 1);
	_exit(128 + sig);
}

int main(void)
{
	int passed = 0;
	int failed = 0;

	/* Line-buffered, so the failures already found survive a sanitizer abort. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, stopped);
	for (const struct test *t = head; t; t = t->next) {
		current = t;
		current_failures = 0;
		t->fn();
		if (current_failures) {
			failed++;
		} else {
			passed++;
		}
	}
	current = NULL;
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
