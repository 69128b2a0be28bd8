/*
 * line: console line editing — echo, backspace, Ctrl-U (erase the line),
 * Ctrl-C (cancel it). While waiting for a key, background jobs that end
 * are reported, so the reads time out now and then.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>

#include "servers/init/console.h"
#include "servers/init/jobs.h"
#include "servers/init/shell/line.h"

#define CTRL_U		 0x15
#define BACKSPACE	 0x08
#define DELETE		 0x7f
#define REAP_INTERVAL_NS 200000000ull

static void echo(const char *s)
{
	fputs(s, stdout);
	fflush(stdout);
}

static void erase(unsigned n)
{
	while (n--) {
		echo("\b \b");
	}
}

bool shell_read_line(char *line)
{
	unsigned len = 0;
	bool too_long = false; /* keys came past the buffer: the line is refused, not cut */

	for (;;) {
		char c;
		long n = sys_console_read(CAP_SLOT_CONSOLE, &c, 1, REAP_INTERVAL_NS);
		if (n < 0) {
			exit(1); /* no console to read: a shell without one has nothing to do */
		}
		if (!n) {
			/* Reported on lines of their own, then the prompt and the line so far
			 * again. */
			if (jobs_reap_pending()) {
				echo("\n");
				jobs_reap();
				printf(INIT_PROMPT "%.*s", (int)len, line);
				fflush(stdout);
			}
			continue;
		}
		if (c == '\r' || c == '\n') {
			echo("\n");
			line[len] = '\0';
			if (too_long) {
				printf("line too long (max %d characters)\n", LINE_MAX - 1);
				return false;
			}
			return true;
		}
		if (c == KEY_CTRL_C) {
			echo("^C\n");
			return false;
		}
		if ((c == BACKSPACE || c == DELETE) && len) {
			len--;
			erase(1);
		} else if (c == CTRL_U) {
			erase(len);
			len = 0;
			too_long = false;
		} else if (c >= ' ' && c < DELETE && len + 1 < LINE_MAX) {
			line[len++] = c;
			char s[2] = {c, '\0'};
			echo(s);
		} else if (c >= ' ' && c < DELETE) {
			too_long = true;
		}
	}
}
