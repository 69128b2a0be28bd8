/*
 * graph: the function graph's events (graph_entry, graph_exit:
 * abi/trace_func.h, THE GRAPH) as the host tool shows them: the text as
 * Linux's function_graph prints it (a call's line opening a brace, its
 * callees indented under it, the brace closed with the duration), and the
 * calls folded with their own time for the flame graph (flame.h). Unlike
 * function_graph, a call that made none is two lines too: the text keeps
 * one line an event, as the dump does, for what reads it line by line.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_GRAPH_H
#define SPOOR_TOOLS_SPOOR_TRACE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/spoor-trace/tally.h"
#include "tools/spoor-trace/view.h"

/* Whether r is a graph event. */
bool graph_event(const struct ttrace_record *r);

/* The name of the function at addr ("sys_getpid"), or its address in hex. */
void graph_func(struct tview *v, uint64_t addr, char *buf, size_t size);

/*
 * Graph event r as the text prints it, into buf (TTRACE_LINE_MAX): the
 * dump's prefix (time, CPU, ids), then "| DURATION | " and the call
 * indented by its depth: "name() {" at its entry, "} /+ name +/" with its
 * duration at its exit (", abandoned" or ", exited" after the name when
 * it did not return). Returns the length.
 */
size_t graph_line(struct tview *v, const struct ttrace_record *r, char *buf);

/*
 * Adds each call of the graph to t (tally column 0) as a folded stack,
 * "comm;root;...;name", weighted by its own nanoseconds (its duration
 * less its callees'). Returns their sum, or -ENOMEM.
 */
long graph_fold(struct tview *v, struct tally *t);

#endif
