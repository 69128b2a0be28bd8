/*
 * info: `spoor-trace info FILE`, what a saved trace holds at a glance,
 * as `trace-cmd report --stat` tells of a trace.dat: the machine (CPUs,
 * TSC rate, the categories), the span of its events, what the save
 * selected (its filter's words and `if PREDICATE`, "every event" for
 * none; the file's, whatever words info is given), each CPU's ledger
 * (emitted = stored + overwritten + dropped + cleared, and what the
 * file's markers lost), the kinds with their counts and the programs
 * with theirs, busiest first.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_INFO_H
#define SPOOR_TOOLS_SPOOR_TRACE_INFO_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* Writes the summary of v's file to out. Returns 0, -ENOMEM or -EIO. */
int info_write(struct tview *v, FILE *out);

#endif
