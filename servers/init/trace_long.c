/*
 * trace_long: keeps the trace verbs' long text bounded and says what is
 * coming. A dump longer than a screen first says how many events it is
 * about to print; `trace run` prints a summary (the stats of the
 * program's events) and its first lines, with the dump that shows the
 * rest; `trace follow pid=N` ends by itself once process N has exited.
 * The verbs themselves live in trace_cmd.c.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "init.h"

#define SCREEN_LINES 40	 /* a dump longer than this says its size first */
#define RUN_LINES    20u /* the events `trace run` prints itself */
#define THREADS_MAX  256 /* as many as the kernel lists at once */
#define EVENTS_KEY   "events="

/*
 * The number of events a dump with filter f would print now, from a STATS
 * request in its key=value form (its first line: events=N lost=L); -E* if
 * traced did not answer. Reads only the first page: the line is first.
 */
static long long dump_size(const struct traced_filter *f)
{
	static struct traced_pager pager;
	struct traced_stats_request r = {.filter = *f, .form = TRACED_STATS_KV};
	const uint8_t *data;
	size_t len;
	uint32_t flags;

	traced_pager_stats(&pager, &r);
	long err = traced_pager_next(&pager, &data, &len, &flags);
	if (err) {
		return err;
	}
	if (len <= strlen(EVENTS_KEY) || memcmp(data, EVENTS_KEY, strlen(EVENTS_KEY))) {
		return -EPROTO;
	}
	/* The page is not a string: strtoull stops at the space after N, well inside it. */
	return (long long)strtoull((const char *)data + strlen(EVENTS_KEY), NULL, 10);
}

void trace_dump_announce(const struct traced_filter *f)
{
	/* A dump asked for a few events needs no count of its own. */
	if (f->flags & (TRACED_F_COUNT | TRACED_F_LAST) && f->count <= SCREEN_LINES) {
		return;
	}
	long long n = dump_size(f);
	if (n > SCREEN_LINES) {
		printf("# %lld events to print (Ctrl-C stops)\n", n);
	}
}

void trace_run_report(const struct traced_filter *f)
{
	struct traced_filter first = *f;
	struct traced_stats_request r = {.filter = *f, .form = TRACED_STATS_TABLE};
	long long n = dump_size(f);

	first.flags |= TRACED_F_COUNT;
	first.count = RUN_LINES;
	trace_print_dump(&first);
	if (n > RUN_LINES) {
		printf("# the first %u of %lld events; all of them: trace dump tree=%u\n",
		       RUN_LINES, n, f->pid);
	}
	trace_print_stats(&r);
}

/* Whether the process f names (pid=, tree=) has exited. */
static bool gone(const struct traced_filter *f)
{
	static struct thread_info threads[THREADS_MAX];

	/* pid 0 is the kernel's: it never exits. */
	if (!(f->flags & TRACED_F_PID) || !f->pid) {
		return false;
	}
	long n = sys_thread_list(threads, THREADS_MAX);
	for (long i = 0; i < n; i++) {
		if (threads[i].pid == f->pid) {
			return false;
		}
	}
	return n >= 0;
}

bool trace_follow_ended(const struct traced_filter *f, size_t len, bool *ending)
{
	/*
	 * Once the process is gone, one more empty page ends the follow: what
	 * it wrote before it went has arrived by then.
	 */
	if (!len && *ending) {
		printf("# pid %u has exited\n", f->pid);
		return true;
	}
	*ending = *ending || (!len && gone(f));
	return false;
}
