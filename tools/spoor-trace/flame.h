/*
 * flame: `spoor-trace flamegraph FILE [OUT.svg]`, a flame graph of the
 * trace's stacks (stacks.h) in the way of Brendan Gregg's FlameGraph: a
 * box a function, as wide as the stacks it is on, its callees on top,
 * the samples' effective rate under the title (idle samples left out
 * unless flags has STACKS_IDLE);
 * and `--folded`, the folded text FlameGraph, inferno and speedscope
 * read: one line a distinct stack, "prog;main;outer;middle;hot 1702",
 * sorted. With FLAME_GRAPH the stacks are the function graph's calls
 * instead (graph.h), each counted in the nanoseconds it ran itself.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FLAME_H
#define SPOOR_TOOLS_SPOOR_TRACE_FLAME_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Draws the function graph's calls by their own time (flags beside stacks.h's). */
#define FLAME_GRAPH 0x100u

/* 0, -ENOMEM, -EIO, or -ENOENT when the trace has no stack (with FLAME_GRAPH: no graph call). */
int flame_folded(struct tview *v, uint32_t flags, FILE *out);
int flame_svg(struct tview *v, uint32_t flags, FILE *out);

#endif
