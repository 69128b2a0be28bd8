/*
 * tracedat_tasks: Spoor's threads as ftrace's tasks, for tracedat.c and
 * tracedat_class.c. Linux names a task by its thread id and calls the
 * idle tasks of all CPUs pid 0 ("<idle>" in trace-cmd and KernelShark);
 * Spoor's idle threads are the threads that wrote events as pid 0 (as
 * the timeline finds them), so they become pid 0 and every other thread
 * keeps its tid. A task's comm is its thread's name, else its program's.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_TASKS_H
#define SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_TASKS_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Linux's TASK_COMM_LEN: the bytes of the comm fields of sched_switch and sched_wakeup. */
#define TDAT_COMM_LEN 16

struct tdat_tasks {
	struct tview *v; /* its names table filled (tview_names()) */
	uint32_t *idle;	 /* the idle threads' tids */
	size_t nidle, cap;
};

/* Finds v's idle threads. Returns 0 or -ENOMEM. */
int tdat_tasks_init(struct tdat_tasks *t, struct tview *v);
void tdat_tasks_fini(struct tdat_tasks *t);

/* The ftrace pid of thread tid: 0 for an idle thread, else tid. */
uint32_t tdat_task_pid(const struct tdat_tasks *t, uint32_t tid);

/*
 * The comm of thread tid into out (TDAT_COMM_LEN bytes, cut there and
 * NUL-padded): "idle", its name, its program's, or Linux's "<...>" for
 * a thread nothing names.
 */
void tdat_task_comm(const struct tdat_tasks *t, uint32_t tid, char *out);

/*
 * The saved_cmdlines text, "PID COMM\n" for each named thread that wrote
 * events (the idle ones are pid 0, which readers name themselves), into
 * out. Returns 0 or -EIO.
 */
int tdat_tasks_cmdlines(const struct tdat_tasks *t, FILE *out);

#endif
