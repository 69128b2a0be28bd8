/*
 * Tests libc's stdio (libc/src/stdio): snprintf, and printf's buffering
 * on the way to the console. This file supplies the console hook, which
 * captures what reaches it and can be told to take only a few bytes per
 * call or to fail, so each test sees exactly when stdout writes out.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libc_host.h"
#include "test.h"

#define STDOUT_BUFSIZE 1024 /* libc/src/stdio/file.c's buffer */
#define STACK_TEXT     256  /* libc/src/stdio/printf.c formats up to this on the stack */

static char console[64 * 1024];
static size_t console_len;
static int console_calls;
static bool console_refuses;	/* every write returns console_refusal */
static long console_refusal;	/* 0 or -E* */
static size_t console_chunk;	/* when not 0, the most one write takes */
static bool console_overflowed; /* more text came than console[] holds */

long __libc_console_write(const void *buf, size_t len)
{
	console_calls++;
	if (console_refuses) {
		return console_refusal;
	}
	if (console_chunk && len > console_chunk) {
		len = console_chunk;
	}
	if (len >= sizeof(console) - console_len) {
		console_overflowed = true;
		return len;
	}
	memcpy(console + console_len, buf, len);
	console_len += len;
	console[console_len] = '\0';
	return len;
}

/* Empties stdout into the console, then forgets what the console got. */
static void console_reset(void)
{
	console_refuses = false;
	console_chunk = 0;
	spoor_fflush(NULL);
	console_len = 0;
	console[0] = '\0';
	console_calls = 0;
	console_overflowed = false;
}

TEST(libc_snprintf)
{
	char buf[16];

	CHECK_EQ_INT(spoor_snprintf(buf, sizeof(buf), "%d-%s", 42, "abc"), 6, "fits");
	CHECK_EQ_STR(buf, "42-abc", "fits");
	CHECK_EQ_INT(spoor_snprintf(buf, 8, "%d-%s", 42, "abcdefgh"), 11, "truncated");
	CHECK_EQ_STR(buf, "42-abcd", "truncated");
	CHECK_EQ_INT(spoor_snprintf(NULL, 0, "%05u", 7u), 5, "size 0 only measures");
	CHECK_EQ_INT(spoor_snprintf(buf, 1, "xyz"), 3, "size 1");
	CHECK_EQ_STR(buf, "", "size 1");
}

TEST(libc_stdout_is_line_buffered)
{
	console_reset();
	CHECK_EQ_INT(spoor_printf("abc"), 3, "printf's count");
	CHECK_EQ_INT(console_calls, 0, "no newline yet");
	CHECK_EQ_INT(spoor_printf("%s\n", "def"), 4, "printf's count");
	CHECK_EQ_STR(console, "abcdef\n", "at the newline");
	CHECK_EQ_INT(console_calls, 1, "one write for the line");

	console_reset();
	spoor_putchar('x');
	spoor_fputs("yz", spoor_stdout);
	CHECK_EQ_INT(console_len, 0, "still no newline");
	CHECK_EQ_INT(spoor_fflush(spoor_stdout), 0, "fflush");
	CHECK_EQ_STR(console, "xyz", "after fflush");
	CHECK_EQ_INT(spoor_fflush(spoor_stdout), 0, "fflush of an empty stream");
	CHECK_EQ_INT(console_calls, 1, "an empty stream writes nothing");

	console_reset();
	CHECK(spoor_puts("line") >= 0, "puts");
	CHECK_EQ_STR(console, "line\n", "puts adds the newline and flushes");
	CHECK_EQ_INT(spoor_putchar(0x1ff), 0xff, "putchar returns the byte as unsigned char");
	console_reset();
}

TEST(libc_stdout_flushes_when_full)
{
	char text[STDOUT_BUFSIZE];

	console_reset();
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	spoor_fputs(text, spoor_stdout); /* one byte short of full */
	CHECK_EQ_INT(console_len, 0, "a buffer one byte short of full");
	spoor_fputs("bb", spoor_stdout);
	CHECK_EQ_UINT(console_len, STDOUT_BUFSIZE - 1,
		      "the full buffer goes before what overflows");
	spoor_fputs("c", spoor_stdout);
	CHECK_EQ_UINT(console_len, STDOUT_BUFSIZE - 1, "the rest waits");
	spoor_fflush(spoor_stdout);
	CHECK_EQ_STR(console + STDOUT_BUFSIZE - 1, "bbc", "the tail");
	console_reset();
}

/* Longer than the stack text and the buffer: formatted on the heap, written in one call. */
TEST(libc_printf_long_text)
{
	static char word[3 * STDOUT_BUFSIZE];
	int n;

	console_reset();
	memset(word, 'w', sizeof(word) - 1);
	spoor_printf("head ");
	n = spoor_printf("[%s] %d\n", word, 7);
	CHECK_EQ_INT(n, (int)sizeof(word) - 1 + 5, "printf's count");
	CHECK_EQ_UINT(console_len, sizeof(word) - 1 + 5 + 5, "all of it");
	CHECK(strncmp(console, "head [www", 9) == 0, "start: %.12s", console);
	CHECK_EQ_STR(console + console_len - 5, "w] 7\n", "end");
	console_reset();

	/* Texts one byte either side of the stack buffer's capacity (its last byte is the NUL). */
	for (int width = STACK_TEXT - 3; width <= STACK_TEXT; width++) {
		console_reset();
		n = spoor_printf("%*d\n", width, 5);
		CHECK_EQ_INT(n, width + 1, "printf's count near the stack size");
		CHECK_EQ_INT(console_len, width + 1, "text near the stack size");
		CHECK_EQ_STR(console + console_len - 2, "5\n", "text near the stack size");
	}
	console_reset();
}

TEST(libc_stderr_keeps_order_with_stdout)
{
	console_reset();
	spoor_printf("out ");
	CHECK_EQ_INT(console_len, 0, "stdout waits for its newline");
	spoor_fputs("err", spoor_stderr);
	CHECK_EQ_STR(console, "out err", "stderr writes at once, after what stdout held");
	spoor_fprintf(spoor_stderr, " %d", 5);
	spoor_fputc('!', spoor_stderr);
	CHECK_EQ_STR(console, "out err 5!", "stderr has no buffer");
	console_reset();
}

TEST(libc_console_partial_writes)
{
	console_reset();
	console_chunk = 3;
	spoor_printf("hello, %s\n", "world");
	CHECK_EQ_STR(console, "hello, world\n", "three bytes a write");
	CHECK_EQ_INT(console_calls, 5, "writes");
	console_reset();
}

struct error_row {
	long result; /* what the refusing console returns */
	int err;     /* errno then */
};

static const struct error_row error_rows[] = {
    {-SPOOR_EBADF, SPOOR_EBADF},
    {-SPOOR_ECAPKIND, SPOOR_ECAPKIND},
    {0, SPOOR_EIO}, /* a console that takes nothing must not be retried forever */
};

/* A refused write is reported, its text dropped, and the next write starts clean. */
TEST(libc_console_errors)
{
	for (size_t i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		const struct error_row *r = &error_rows[i];
		char what[32];

		snprintf(what, sizeof(what), "console returns %ld", r->result);
		console_reset();
		spoor_printf("dropped ");
		console_refuses = true;
		console_refusal = r->result;
		spoor_errno = 0;
		CHECK_EQ_INT(spoor_printf("x\n"), -1, what);
		CHECK_EQ_INT(spoor_errno, r->err, what);
		spoor_errno = 0;
		CHECK_EQ_INT(spoor_fputs("e", spoor_stderr), -1, what);
		CHECK_EQ_INT(spoor_errno, r->err, what);
		CHECK_EQ_INT(spoor_putchar('\n'), -1, what);
		console_refuses = false;
		spoor_printf("kept\n");
		CHECK_EQ_STR(console, "kept\n", what);
	}
	console_reset();
}

/* Lines printed by threads at once each arrive whole. */
#define THREADS 4
#define LINES	200

static void *print_lines(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int line = 0; line < LINES; line++) {
		spoor_printf("thread %d line %d of %d\n", id, line, LINES);
	}
	return NULL;
}

TEST(libc_printf_threads_do_not_mix_lines)
{
	pthread_t threads[THREADS];
	int next[THREADS] = {0};
	char *save, *line;

	console_reset();
	for (int i = 0; i < THREADS; i++) {
		pthread_create(&threads[i], NULL, print_lines, (void *)(intptr_t)i);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
	}
	CHECK(!console_overflowed, "the capture buffer is too small for this test");
	for (line = strtok_r(console, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int id, n, of;

		if (sscanf(line, "thread %d line %d of %d", &id, &n, &of) != 3 || id < 0 ||
		    id >= THREADS || of != LINES || n != next[id]) {
			CHECK(false, "mixed or lost line: \"%s\"", line);
			break;
		}
		next[id]++;
	}
	for (int i = 0; i < THREADS; i++) {
		CHECK_EQ_INT(next[i], LINES, "lines of each thread");
	}
	console_reset();
}
