/*
 * track: `trace track PID...` and `trace untrack PID...|all`, PID
 * tracking in the kernel: while it is on, only the tracked processes and
 * what they spawn record events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "servers/init/shell/trace/track.h"
#include "servers/init/shell/trace/verb.h"

/* A pid word: a number above 0 that fits 32 bits. */
static bool pid_word(const char *w, uint32_t *pid)
{
	char *end;
	unsigned long v = strtoul(w, &end, 10);

	if (*w < '0' || *w > '9' || *end || !v || v > UINT32_MAX) {
		printf("trace: '%s' is not a pid\n", w);
		return false;
	}
	*pid = (uint32_t)v;
	return true;
}

/* TRACK or UNTRACK of each pid word; says what happened to each. */
static void track_pids(int argc, char **argv, bool on)
{
	for (int i = 1; i < argc; i++) {
		uint32_t pid;
		if (!pid_word(argv[i], &pid)) {
			return;
		}
		long err = on ? traced_call_track(pid, NULL) : traced_call_untrack(pid, NULL);
		if (err == -ENOENT) {
			printf("trace: no process %u\n", pid);
			return;
		}
		if (verb_failed(err)) {
			return;
		}
		printf("trace: %s pid %u\n", on ? "tracking" : "no longer tracking", pid);
	}
}

void track_verb(const struct verb *verb, int argc, char **argv)
{
	if (argc < 2) {
		verb_usage(verb);
		return;
	}
	track_pids(argc, argv, true);
}

void track_untrack(const struct verb *verb, int argc, char **argv)
{
	if (argc < 2) {
		verb_usage(verb);
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "all")) {
		if (!verb_failed(traced_call_untrack(TRACED_UNTRACK_ALL, NULL))) {
			printf("trace: tracking off: every process is traced\n");
		}
		return;
	}
	track_pids(argc, argv, false);
}
