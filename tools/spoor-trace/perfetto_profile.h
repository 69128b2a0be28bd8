/*
 * perfetto_profile: the profiler's samples in the Trace Event JSON as
 * Chrome's CPU profiles, which the Performance panel draws as a flame
 * chart on the sampled thread's track and DevTools' trace engine reads
 * (its Samples handler): per thread with prof_sample events, a "Profile"
 * event (ph "P", id, the first sample's time as startTime) and one
 * "ProfileChunk" with the tree of its stacks as cpuProfile nodes (the
 * root "(root)", then the program, its frames from the outermost, then
 * the kernel's, as stacks.h names them, each node's url its module), the
 * node of each sample, and the time from each sample to the next in
 * microseconds (timeDeltas, never negative). An idle sample's node is
 * "(idle)", the name DevTools gives time the CPU had nothing to run; a
 * sample whose stack cannot be read is its program's node alone.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_PERFETTO_PROFILE_H
#define SPOOR_TOOLS_SPOOR_TRACE_PERFETTO_PROFILE_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* The category Chrome gives its profiler's events. */
#define PERFETTO_PROFILE_CAT "disabled-by-default-v8.cpu_profiler"

/*
 * Writes the profiles of v's samples to out, each event after a comma and
 * a newline, as events of a traceEvents array that has one already.
 * Returns 0, -ENOMEM, or -EIO if out failed.
 */
int perfetto_profiles(struct tview *v, FILE *out);

#endif
