/*
 * timeline: a saved trace as one SVG picture. Time runs left to right
 * over the events' span; each CPU has a lane holding the runs of its
 * threads (runs.h), coloured by thread, with a legend naming each
 * thread's program. Page faults are red marks above a lane, IPC calls
 * blue and replies green marks below it, losses an orange line across
 * it. Marks closer than a pixel are drawn once, so the picture stays
 * small however long the trace. The output is well-formed XML.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_H
#define SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Writes v's picture to out. Returns 0, -ENOMEM, or -EIO if out failed. */
int timeline_convert(struct tview *v, FILE *out);

#endif
