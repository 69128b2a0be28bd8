/*
 * verbs: the shell's `trace` command: the one list of its verbs, from
 * which the dispatch, `trace`'s listing, `help`'s line and the
 * unknown-verb error are made. Each verb lives in a file of this folder
 * (verb.h says what they share); they talk to traced (abi/traced.h)
 * through libc's trace_client, print a line confirming what happened,
 * and answer wrong input with one line saying what is accepted.
 */
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "servers/init/services.h"
#include "servers/init/shell/trace/control.h"
#include "servers/init/shell/trace/dump.h"
#include "servers/init/shell/trace/follow.h"
#include "servers/init/shell/trace/func.h"
#include "servers/init/shell/trace/graph.h"
#include "servers/init/shell/trace/probe.h"
#include "servers/init/shell/trace/prof.h"
#include "servers/init/shell/trace/record.h"
#include "servers/init/shell/trace/run.h"
#include "servers/init/shell/trace/save.h"
#include "servers/init/shell/trace/stats.h"
#include "servers/init/shell/trace/status.h"
#include "servers/init/shell/trace/strings.h"
#include "servers/init/shell/trace/top.h"
#include "servers/init/shell/trace/track.h"
#include "servers/init/shell/trace/trigger.h"
#include "servers/init/shell/trace/uevents.h"
#include "servers/init/shell/trace/verb.h"
#include "servers/init/shell/trace/verbs.h"

#define LIST_MAX 256 /* a list of verbs, keys or sets, in one line */

static const struct verb verbs[] = {
    {"on", "CATS|KINDS [if PREDICATE] (e.g. mem,ipc or all or user:NAME; syscall if result < 0)",
     "start tracing them, keeping only the events the predicate holds for", control_on},
    {"off", "[CATS|KINDS]", "stop tracing them and drop their filters (all if none)", control_off},
    {"status", "", "mask, mode, per-CPU counts", status_verb},
    {"dump", "[FILTERS]", "the events that pass the filters, oldest first", dump_verb},
    {"clear", "", "discard every ring's events", control_clear},
    {"mode", "overwrite|drop", "when a ring is full", control_mode},
    {"follow", "[FILTERS]", "print events as they come (Ctrl-C or pid=N's end stops)", follow_verb},
    {"save", "[FILTERS] [as NAME]", "write them to the host: build/traces/NAME.spoor", save_verb},
    {"record", "[CATS] [FILTERS] [as NAME] | stop",
     "stream them to the host as they come: build/traces/NAME.spoor", record_verb},
    {"track", "PID...", "record only these processes and what they spawn", track_verb},
    {"untrack", "PID...|all", "stop tracking them (all: record everyone again)", track_untrack},
    {"run", "[CATS] PROG [ARGS]", "trace one program, then its first events and stats", run_verb},
    {"echo", "on|off [CATS]", "the kernel prints those events on the console too", control_echo},
    {"self", "on|off", "record traced's own events too, or leave them out (the default)",
     control_self},
    {"stack", "on KINDS|CATS|off [KINDS|CATS]",
     "their events carry their call stacks too, or no longer (off alone: none)", prof_stack},
    {"profile", "[HZ] [CPU|all]|off", "sample every cpu's stack HZ (997) times a second",
     prof_profile},
    {"top", "[SECONDS]", "the kernel functions the samples found most (last 5 s)", top_verb},
    {"stats", "[FILTERS]",
     "counts per kind; syscall, IPC, fault and wakeup latencies (help trace stats: the legend)",
     stats_verb},
    {"hist", "MEASURE [KEY=VALUE] [FILTERS]", "a log2 histogram of one latency", stats_hist},
    {"strings", "[SET]", "the aux strings, of one set or all", strings_verb},
    {"events", "", "the user events, as Linux's user_events_status", uevents_list},
    {"register", "'NAME [TYPE FIELD;...]'", "define a user event", uevents_register},
    {"unregister", "NAME", "delete a user event nobody holds", uevents_unregister},
    {"func", "PATTERN...|off [PATTERN...]|list PATTERN",
     "record each entry of the kernel functions the globs (* ?) match; list: which may be "
     "traced, and why not",
     func_verb},
    {"graph", "FUNC... [depth=N]|off",
     "record the calls of the functions the globs match, and all they make", graph_verb},
    {"trigger", TRIGGER_ARGS, TRIGGER_WHAT, trigger_verb},
    {"probe", "SYMBOL[+OFFSET] [as NAME] [REG...]|off [NAME]|list",
     "record the registers named each time the kernel reaches that instruction", probe_verb},
};

#define NUM_VERBS (sizeof(verbs) / sizeof(verbs[0]))

void verbs_format(char *buf, size_t size, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NUM_VERBS && n < size; i++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? sep : "", verbs[i].name);
	}
}

/* `trace` alone: every verb, then what FILTERS and SET stand for. */
static void list_verbs(void)
{
	char list[LIST_MAX];

	for (size_t i = 0; i < NUM_VERBS; i++) {
		printf("  trace %s%s%s: %s\n", verbs[i].name, *verbs[i].args ? " " : "",
		       verbs[i].args, verbs[i].what);
	}
	traced_filter_usage(list, sizeof(list));
	printf("  FILTERS: %s [if PREDICATE]\n", list);
	strings_sets(list, sizeof(list), "|");
	printf("  SET: %s\n", list);
}

void verbs_run(int argc, char **argv)
{
	const struct verb *verb = NULL;
	char known[LIST_MAX];

	for (size_t i = 0; argc > 1 && i < NUM_VERBS; i++) {
		if (!strcmp(argv[1], verbs[i].name)) {
			verb = &verbs[i];
		}
	}
	if (!verb) {
		if (argc > 1) {
			verbs_format(known, sizeof(known), " ");
			printf("trace: unknown command '%s' (known: %s)\n", argv[1], known);
			return;
		}
		list_verbs();
		return;
	}
	int slot = services_client(TRACED_NAME, TRACED_LEVEL_CONTROL);
	if (slot < 0) {
		printf("trace: traced is not running\n");
		return;
	}
	traced_use(slot);
	verb->run(verb, argc - 1, argv + 1);
}
