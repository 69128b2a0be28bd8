/*
 * file: the two output streams and their buffering. Both end at the
 * console capability through __libc_console_write(). stdout collects text
 * in a buffer and writes it out at a newline, when the buffer is full, at
 * fflush() and at exit(); stderr writes at once, after flushing stdout so
 * that the two keep their order on the one console.
 *
 * Each stream has a lock, held for one whole call, so a line written by
 * one call is never split by another thread's. A thread never holds two
 * stream locks: stderr flushes stdout before taking its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libc/src/internal.h"

#define STDOUT_BUFSIZE 1024

struct file {
	struct libc_lock lock;
	char *buf;   /* [I] NULL for an unbuffered stream */
	size_t size; /* [I] bytes at buf */
	size_t len;  /* [lock] bytes waiting in buf */
};

static char stdout_buf[STDOUT_BUFSIZE];
static struct file stdout_file = {.buf = stdout_buf, .size = sizeof(stdout_buf)};
static struct file stderr_file;

FILE *const stdout = &stdout_file;
FILE *const stderr = &stderr_file;

/* Writes all of s to the console, in as many calls as it takes. Returns 0 or -E*. */
static long console_write_all(const char *s, size_t len)
{
	while (len > 0) {
		long n = __libc_console_write(s, len);

		if (n <= 0) {
			return n < 0 ? n : -EIO;
		}
		s += n;
		len -= n;
	}
	return 0;
}

/* Writes out f's buffer, lock held. On failure the text is dropped: a full buffer would stick. */
static long flush_locked(struct file *f)
{
	long r = console_write_all(f->buf, f->len);

	f->len = 0;
	return r;
}

/* Sends s through f, lock held. Returns 0 or -E*. */
static long write_locked(struct file *f, const char *s, size_t len)
{
	long r;

	if (!f->buf) {
		return console_write_all(s, len);
	}
	if (len > f->size - f->len) {
		r = flush_locked(f);
		if (r < 0) {
			return r;
		}
		/* Text as large as the buffer would only pass through it. */
		if (len >= f->size) {
			return console_write_all(s, len);
		}
	}
	memcpy(f->buf + f->len, s, len);
	f->len += len;
	if (f->len == f->size || memchr(s, '\n', len)) {
		return flush_locked(f);
	}
	return 0;
}

/* Sends s and then tail (which may be empty) through f as one write. Returns 0 or EOF. */
static int file_write(FILE *f, const char *s, size_t len, const char *tail)
{
	long r;

	if (!f->buf) {
		fflush(stdout);
	}
	lock_acquire(&f->lock);
	r = write_locked(f, s, len);
	if (r == 0 && *tail) {
		r = write_locked(f, tail, strlen(tail));
	}
	lock_release(&f->lock);
	if (r < 0) {
		errno = (int)-r;
		return EOF;
	}
	return 0;
}

int __libc_file_write(FILE *f, const char *s, size_t len)
{
	return file_write(f, s, len, "");
}

int fflush(FILE *f)
{
	long r = 0;

	if (!f) {
		f = stdout; /* the only stream with a buffer */
	}
	if (f->buf) {
		lock_acquire(&f->lock);
		r = flush_locked(f);
		lock_release(&f->lock);
	}
	if (r < 0) {
		errno = (int)-r;
		return EOF;
	}
	return 0;
}

int fputs(const char *restrict s, FILE *restrict f)
{
	return file_write(f, s, strlen(s), "");
}

int puts(const char *s)
{
	return file_write(stdout, s, strlen(s), "\n");
}

int fputc(int c, FILE *f)
{
	char ch = (char)c;

	return file_write(f, &ch, 1, "") == EOF ? EOF : (unsigned char)ch;
}

int putchar(int c)
{
	return fputc(c, stdout);
}
