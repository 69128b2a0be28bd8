/*
 * flame: `spoor-trace flamegraph FILE [OUT.svg]`, a flame graph of the
 * trace's stacks (stacks.h) in the way of Brendan Gregg's FlameGraph: a
 * box a function, as wide as the stacks it is on, its callees on top,
 * the samples' effective rate under the title (idle samples left out
 * unless flags has STACKS_IDLE);
 * and `--folded`, the folded text FlameGraph, inferno and speedscope
 * read: one line a distinct stack, "prog;main;outer;middle;hot 1702",
 * sorted.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FLAME_H
#define SPOOR_TOOLS_SPOOR_TRACE_FLAME_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* 0, -ENOMEM, -EIO, or -ENOENT when the trace has no stack. */
int flame_folded(struct tview *v, uint32_t flags, FILE *out);
int flame_svg(struct tview *v, uint32_t flags, FILE *out);

#endif
