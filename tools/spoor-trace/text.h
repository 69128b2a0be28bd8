/*
 * text: a saved trace as `trace dump` prints it, byte for byte: each
 * event's line from the shared formatter, "# lost N events on cpu C"
 * where a loss marker stands, and "# end of dump: N events, L lost" last;
 * but the function graph's events, which are printed as Linux's
 * function_graph prints them (graph.h), after the same prefix, still one
 * line an event.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TEXT_H
#define SPOOR_TOOLS_SPOOR_TRACE_TEXT_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Writes v's events as text to out. Returns 0, or -EIO if out failed. */
int text_convert(struct tview *v, FILE *out);

#endif
