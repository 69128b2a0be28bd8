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

/*
 * Calls fn for every stack of v's trace, as above, and returns how many
 * there were, with *kind the kind they came from (TTRACE_KIND_prof_sample
 * or 0 for every stacked event). fn returning nonzero stops the walk and
 * is returned negated.
 */
long stacks_each(struct tview *v, uint16_t *kind, int (*fn)(void *ctx, const struct stack_names *s),
		 void *ctx);

#endif
