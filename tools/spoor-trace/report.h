/*
 * report: `spoor-trace report FILE`, a table in the way of perf report:
 * for each function (its module: a program, "kernel" or "idle"), the
 * samples that were in it (self) and those it was on the stack of
 * (total), as shares of all the stacks and as counts, highest self
 * first; above it, each module's share of self and the samples'
 * effective rate. Over the prof_samples of the trace, idle ones left
 * out unless STACKS_IDLE (stacks.h), or when it has none, over every
 * event with a stack.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_REPORT_H
#define SPOOR_TOOLS_SPOOR_TRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Writes the report to out. 0, -ENOMEM, -EIO, or -ENOENT when the trace has no stack. */
int report_write(struct tview *v, uint32_t flags, FILE *out);

#endif
