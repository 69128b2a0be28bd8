/*
 * exit, abort and __libc_fatal: the ways a program ends from libc.
 * exit() flushes stdout first; the fatal paths do not touch stdio at all,
 * since they may run with its state broken (a corrupted heap) or its lock
 * held, and write one line straight to the console instead.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/format.h"
#include "libc/src/internal.h"

#define FATAL_LINE 256

void exit(int status)
{
	fflush(stdout);
	sys_exit(status);
}

void __libc_fatal(const char *msg)
{
	char line[FATAL_LINE];
	size_t len = format_snprintf(line, sizeof(line), "%s: %s\n", __libc_progname, msg);

	if (len >= sizeof(line)) {
		len = sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	for (size_t done = 0; done < len;) {
		long n = __libc_console_write(line + done, len - done);

		if (n <= 0) {
			break;
		}
		done += n;
	}
	sys_exit(EXIT_ABORTED);
}

void abort(void)
{
	__libc_fatal("aborted");
}
