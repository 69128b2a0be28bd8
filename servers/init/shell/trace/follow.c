/*
 * follow: `trace follow [FILTERS]`, traced's text of new events as they
 * come, until a Ctrl-C; `trace follow pid=N` also ends by itself once
 * process N has exited and its last events have come.
 */
#include <spoor.h>
#include <stdio.h>
#include <trace_client.h>

#include "servers/init/shell/trace/follow.h"
#include "servers/init/shell/trace/verb.h"

#define FOLLOW_POLL_NS 100000000ull
#define THREADS_MAX    256 /* as many as the kernel lists at once */

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

/*
 * A follow's end by itself: after a page of len bytes, whether the
 * process its filter f names (pid=, tree=) has exited and its last events
 * have come (the end line says so). *ending (false at the start) carries
 * what it saw from one page to the next.
 */
static bool ended(const struct traced_filter *f, size_t len, bool *ending)
{
	/*
	 * Once the process is gone, one more empty page ends the follow: what
	 * it wrote before it went has arrived by then.
	 */
	if (!len && *ending) {
		return true;
	}
	*ending = *ending || (!len && gone(f));
	return false;
}

void follow_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;
	static struct traced_pred pred;
	struct traced_filter f;
	const uint8_t *data;
	size_t len;
	uint32_t flags;
	bool ending = false;

	(void)verb;
	if (!verb_filters(argc, argv, &f, &pred)) {
		return;
	}
	if (f.flags & TRACED_F_LAST) {
		printf("trace: follow takes no last= (it shows what comes next)\n");
		return;
	}
	traced_pager_dump(&pager, TRACED_OP_FOLLOW, &f, TRACED_FORMAT_TEXT);
	traced_pager_pred(&pager, &pred);
	/* Says every way it ends, so nobody waits for an end that is not coming. */
	if (f.flags & TRACED_F_PID && f.pid) {
		printf("# following; Ctrl-C stops (or pid %u's exit)\n", f.pid);
	} else {
		printf("# following; Ctrl-C stops\n");
	}
	for (;;) {
		if (verb_failed(traced_pager_next(&pager, &data, &len, &flags))) {
			return;
		}
		printf("%.*s", (int)len, (const char *)data);
		fflush(stdout);
		if (flags & TRACED_DUMP_DONE || verb_interrupted(len ? 0 : FOLLOW_POLL_NS) ||
		    ended(&f, len, &ending)) {
			break;
		}
	}
	/* One end line, whatever ended it: the ^C above it only echoes the key. */
	const struct traced_cursor *c = &pager.reply.head.cursor;
	printf("%s# stopped following: %llu events, %llu lost",
	       flags & TRACED_DUMP_DONE || ending ? "" : "^C\n", (unsigned long long)c->events,
	       (unsigned long long)c->lost);
	if (ending) {
		printf("; pid %u has exited", f.pid);
	}
	printf("\n");
}
