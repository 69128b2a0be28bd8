/*
 * run: `trace run [CATS] PROG [ARGS]`, one program traced alone from its
 * first instruction, then its first events and their stats.
 */
#include <spoor.h>
#include <stdio.h>
#include <trace_client.h>

#include "servers/init/jobs.h"
#include "servers/init/shell/trace/dump.h"
#include "servers/init/shell/trace/run.h"
#include "servers/init/shell/trace/stats.h"
#include "servers/init/shell/trace/verb.h"

#define RUN_LINES 20u /* the events `trace run` prints itself */

/* PID tracking as st had it: the processes it lists (those still alive), or none. */
static void restore_tracking(const struct traced_status *st)
{
	uint32_t self = (uint32_t)sys_getpid();

	traced_call_untrack(TRACED_UNTRACK_ALL, NULL);
	if (!st->tracking) {
		return;
	}
	/* Tracking on, even if no process it tracked is left: init in and out again. */
	bool self_tracked = false;
	traced_call_track(self, NULL);
	for (uint32_t i = 0; i < st->ntracked && i < TRACED_TRACKED_MAX; i++) {
		traced_call_track(st->tracked[i], NULL);
		self_tracked |= st->tracked[i] == self;
	}
	if (!self_tracked) {
		traced_call_untrack(self, NULL);
	}
}

/*
 * After the run: the first lines of the program's events (f: its tree),
 * how to see the rest, and their stats.
 */
static void report(const struct traced_filter *f)
{
	struct traced_filter first = *f;
	struct traced_stats_request r = {.filter = *f, .form = TRACED_STATS_TABLE};
	long long n = dump_size(f, NULL);

	first.flags |= TRACED_F_COUNT;
	first.count = RUN_LINES;
	dump_print(&first, NULL);
	if (n > RUN_LINES) {
		printf("# the first %u of %lld events; all of them: trace dump tree=%u\n",
		       RUN_LINES, n, f->pid);
	}
	stats_print(&r);
}

/*
 * trace run [CATS] PROG [ARGS]: PROG alone is traced, from its first
 * instruction: tracking goes to init just while it spawns PROG, which
 * inherits it; then categories and tracking go back to what they were,
 * and PROG's events (and its descendants') are printed as `trace dump
 * tree=PID` would. The observers (the shell, traced) are not tracked, so
 * they add nothing; init's own few events around the spawn are recorded
 * but belong to another pid.
 */
void run_verb(const struct verb *verb, int argc, char **argv)
{
	struct traced_status before;
	struct traced_filter f = {.flags = TRACED_F_PID | TRACED_F_TREE};
	uint64_t cats;
	char why[WHY_MAX];
	struct job *job;
	int first = argc > 2 && !traced_categories_parse(argv[1], &cats, why, sizeof(why)) ? 2 : 1;

	if (first == 1) {
		cats = TTRACE_CAT_ALL;
	}
	if (argc <= first) {
		verb_usage(verb);
		return;
	}
	if (verb_failed(traced_call_status(&before))) {
		return;
	}
	uint64_t added = cats & ~before.mask;
	uint32_t self = (uint32_t)sys_getpid();
	long err = traced_call_untrack(TRACED_UNTRACK_ALL, NULL);
	err = err ? err : traced_call_track(self, NULL);
	err = err || !added ? err : traced_call_enable(added, NULL);
	int started = err ? 0
			  : jobs_start(argv[first], argc - first, argv + first, false,
				       TRACED_LEVEL_SELF, 0, &job);
	traced_call_untrack(self, NULL);
	if (!err && !started) {
		f.pid = job->pid;
		jobs_launch(job); /* untracked now: the shell's line is not in its trace */
		jobs_wait_foreground(job);
	}
	if (added) {
		traced_call_disable(added, NULL);
	}
	restore_tracking(&before);
	if (verb_failed(err)) {
		return;
	}
	if (started) {
		jobs_start_failed("trace", argv[first], started);
		return;
	}
	report(&f);
}
