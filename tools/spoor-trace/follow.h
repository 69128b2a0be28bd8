/*
 * follow: `spoor-trace follow [FILTERS] NAME|FILE` prints a recording's
 * events (abi/trace_file.h, A RECORDING) as the host receives them, as
 * `trace follow` prints a machine's: first what the file holds, then
 * each chunk as it arrives, until the recording's end, whose line it
 * prints last. It reads only what was appended, waits for a file that
 * is not there yet and starts over with one that was replaced, as
 * `tail -F` does. NAME alone is build/traces/NAME.spoor. FILTERS are the
 * words of `trace dump` that an event can be decided by as it arrives
 * (common/trace_filter.h, TTRACE_FILTER_STREAM: cpu= pid= tid= comm= kind=
 * cat=), parsed and matched by the code every other subcommand uses;
 * loss lines of the CPUs shown always show.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FOLLOW_H
#define SPOOR_TOOLS_SPOOR_TRACE_FOLLOW_H

#include "common/trace_filter.h"

/* The FILTERS keys follow takes (TTRACE_FILTER_*). */
#define FOLLOW_FILTERS TTRACE_FILTER_STREAM

/*
 * Runs follow on argv[0..argc): FILTERS, then NAME or FILE. Returns the
 * exit status: 0 at the recording's end (or once a saved trace is
 * printed), 2 for a bad word or a file that cannot be read or is refused
 * (one line), 1 when standard output fails.
 */
int follow_run(const char *prog, int argc, char **argv);

#endif
