/*
 * stats: `spoor-trace stats FILE [FILTERS]` and `spoor-trace hist FILE
 * MEASURE [KEY=VALUE] [FILTERS]`, the shell's `trace stats` and `trace
 * hist` on a saved file: its events folded by common/trace_stats.h, the
 * code traced answers with, into the same text. What the file's losses
 * meant for the window is traced's to say (it knew the rings); here the
 * head line counts them.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_STATS_H
#define SPOOR_TOOLS_SPOOR_TRACE_STATS_H

#include <stdio.h>

#include "abi/traced.h"
#include "tools/spoor-trace/view.h"

/*
 * Writes the answer r asks (its form: TRACED_STATS_TABLE or _HIST with
 * its measure, key and path; its filter names the kinds always shown)
 * over v's events to out. Returns 0, -ENOMEM or -EIO.
 */
int stats_write(struct tview *v, const struct traced_stats_request *r, FILE *out);

#endif
