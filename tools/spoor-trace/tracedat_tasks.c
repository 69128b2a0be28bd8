/*
 * tracedat_tasks: the ftrace pid and comm of Spoor's threads (see
 * tracedat_tasks.h).
 */
#include "tools/spoor-trace/tracedat_tasks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* tview_each()'s callback: a thread that wrote events as pid 0 is a CPU's idle thread. */
static void note_idle(void *ctx, uint32_t tid)
{
	struct tdat_tasks *t = ctx;

	if (tview_thread_pid(t->v, tid) || !t->idle) {
		return;
	}
	if (t->nidle == t->cap) {
		uint32_t *more = realloc(t->idle, 2 * t->cap * sizeof(*more));
		if (!more) {
			free(t->idle);
			t->idle = NULL;
			return;
		}
		t->idle = more;
		t->cap *= 2;
	}
	t->idle[t->nidle++] = tid;
}

int tdat_tasks_init(struct tdat_tasks *t, struct tview *v)
{
	t->v = v;
	t->nidle = 0;
	t->cap = 8;
	t->idle = malloc(t->cap * sizeof(*t->idle));
	if (t->idle) {
		tview_each(v, 1, note_idle, t);
	}
	return t->idle ? 0 : -ENOMEM;
}

void tdat_tasks_fini(struct tdat_tasks *t)
{
	free(t->idle);
	t->idle = NULL;
}

uint32_t tdat_task_pid(const struct tdat_tasks *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nidle; i++) {
		if (t->idle[i] == tid) {
			return 0;
		}
	}
	return tid;
}

/* The name of thread tid, NULL when nothing names it; "idle" for an idle thread. */
static const char *name_of(const struct tdat_tasks *t, uint32_t tid)
{
	if (!tdat_task_pid(t, tid)) {
		return "idle";
	}
	const char *own = tview_thread_name(t->v, tid);
	return own ? own : tview_proc_name(t->v, tview_thread_pid(t->v, tid));
}

void tdat_task_comm(const struct tdat_tasks *t, uint32_t tid, char *out)
{
	const char *name = name_of(t, tid);

	memset(out, 0, TDAT_COMM_LEN);
	strncpy(out, name ? name : "<...>", TDAT_COMM_LEN - 1);
	/* saved_cmdlines is one task a line: a name from the trace keeps to one. */
	for (char *c = out; *c; c++) {
		if ((unsigned char)*c < ' ' || *c == 0x7f) {
			*c = '?';
		}
	}
}

struct cmdlines {
	const struct tdat_tasks *t;
	FILE *out;
};

static void cmdline(void *ctx, uint32_t tid)
{
	struct cmdlines *c = ctx;
	char comm[TDAT_COMM_LEN];

	if (tdat_task_pid(c->t, tid) && name_of(c->t, tid)) {
		tdat_task_comm(c->t, tid, comm);
		fprintf(c->out, "%u %s\n", tid, comm);
	}
}

int tdat_tasks_cmdlines(const struct tdat_tasks *t, FILE *out)
{
	struct cmdlines c = {t, out};

	tview_each(t->v, 1, cmdline, &c);
	return ferror(out) ? -EIO : 0;
}
