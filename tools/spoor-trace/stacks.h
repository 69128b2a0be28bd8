/*
 * stacks: the call stacks of a trace as the answers read them (report.c,
 * flame.c): every prof_sample when the trace has any, else every event
 * that carries a stack (trace stack on ...), each turned into names, root
 * first: the program, its frames from the outermost, then the kernel's
 * (marked "_[k]", as Linux perf's folded output marks them). A frame
 * nothing names stays its hex address. Idle samples are the one frame
 * "idle".
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_STACKS_H
#define SPOOR_TOOLS_SPOOR_TRACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "tools/spoor-trace/view.h"

#define STACKS_NAME_MAX	  96				/* one frame's name */
#define STACKS_FRAMES_MAX (TTRACE_STACK_FRAMES_MAX + 1) /* and the program's name */

/* One stack, root first. */
struct stack_names {
	uint32_t n;
	char name[STACKS_FRAMES_MAX][STACKS_NAME_MAX];
	char module[STACKS_FRAMES_MAX][TTRACE_COMM_MAX]; /* "kernel", the program, or "idle" */
};

/* rec's stack as names, root first: true, or false for an event without one. */
bool stacks_of(struct tview *v, const struct ttrace_record *rec, struct stack_names *s);

/* stacks_each()'s flags. */
#define STACKS_IDLE 0x1u /* the idle CPUs' samples too (else left out: they hide the work) */

/* What stacks_each() saw of the profiler's samples, idle or not. */
struct stacks_seen {
	long samples, idle;
	uint64_t first_ts, last_ts;
	uint32_t cpus; /* bit c: CPU c was sampled */
};

/*
 * Calls fn for every stack of v's trace, as above (idle samples only with
 * STACKS_IDLE), and returns how many there were, with *kind the kind they
 * came from (TTRACE_KIND_prof_sample or 0 for every stacked event) and
 * in *seen what it saw of the samples. fn returning nonzero stops the
 * walk and is returned negated.
 */
long stacks_each(struct tview *v, uint32_t flags, uint16_t *kind, struct stacks_seen *seen,
		 int (*fn)(void *ctx, const struct stack_names *s), void *ctx);

/*
 * The samples' effective rate, as a line's words into buf: "1204 samples
 * on 4 cpus in 0.301000 s: 1000 Hz a cpu; 903 idle left out (--idle shows
 * them)" — what the profiler achieved, whatever rate was asked. Nothing
 * when the stacks are no samples.
 */
void stacks_rate(const struct tview *v, const struct stacks_seen *seen, uint32_t flags, char *buf,
		 size_t size);

#endif
