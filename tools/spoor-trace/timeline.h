/*
 * timeline: a saved trace as one SVG picture. Time runs left to right
 * over a window of the trace (timeline_opts.h: the whole trace unless
 * asked), the axis giving offsets from the window's start. Each CPU has
 * a lane holding who ran when (runs.h):
 *   - a program's work in its own colour, the same in every picture (a
 *     hash of its name, timeline_look.h), labelled with the name where
 *     it is wide enough; runs of one process that touch on the picture
 *     are one rectangle;
 *   - idle (no thread, or the CPU's idle thread) light grey, labelled
 *     "idle"; other programs' work, when --pid chose some, one grey;
 *   - white where the trace says nothing of who ran: before a CPU's first
 *     switch and after a loss until the next, and all over without the
 *     sched category (a lane without a run says which).
 * Above each lane a strip counts page faults per pixel, below it IPC
 * calls and replies: the more, the darker, so a burst of thousands stays
 * a readable band. A loss is an orange line across the lane where it
 * happened. The legend names each program with its busy time in the
 * window, longest first.
 *
 * The elements carry what a test needs to measure them: each lane is a
 * <g id="cpuN"> holding a <rect class="lane"> (the plot's x and width), its
 * rectangles of class "run", "idle" or "other" with a <title> naming the
 * thread or process, strips of class "pf" or "ipc" whose <title> begins
 * with their count, and lines of class "lost". The output is well-formed
 * XML.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_H
#define SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_H

#include <stdio.h>

#include "tools/spoor-trace/timeline_opts.h"
#include "tools/spoor-trace/view.h"

/*
 * Writes the picture o asks of v to out (o: checked by
 * timeline_opts_check()). Returns 0, -ENOMEM, or -EIO if out failed.
 */
int timeline_draw(struct tview *v, const struct timeline_opts *o, FILE *out);

/* The whole trace with the default options. */
int timeline_convert(struct tview *v, FILE *out);

#endif
