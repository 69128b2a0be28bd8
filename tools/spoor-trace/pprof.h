/*
 * pprof: a saved trace's call stacks as a pprof profile (gzipped
 * protocol buffers, pprof's own profile.proto through protobuf-c), which
 * `go tool pprof` and speedscope read.
 *
 * The mapping:
 *   - two sample types: "samples" (count), the profiler's prof_sample
 *     events, and "events" (count), the other events that carry a stack
 *     (trace stack on KINDS), each labelled "event" with its kind; a
 *     sample's values are 1 for its type and 0 for the other, and the
 *     default type is "samples";
 *   - a sample's locations are its frames, innermost first: the kernel's
 *     (when it sampled or stopped in the kernel), then the program's. An
 *     idle sample is one location, function "idle". A stack whose frames
 *     all went is its program's name, as `spoor-trace report` counts it;
 *   - a location per frame address, in the mapping of its module: the
 *     kernel (build/kernel.elf) or the program (its name), the mapping's
 *     range the lowest and highest address seen in it; its line the
 *     function, source file and line symbols.h names (a return address
 *     named by the call before it), or, when nothing names it, a function
 *     called by the address in hex, as report shows it;
 *   - labels "pid" and "tid" (numbers) on every sample, so pprof's
 *     -tagfocus picks a program or a thread;
 *   - the duration: from the first sample or stacked event to the last.
 * Mappings say they have functions, files and lines: pprof needs no
 * binaries to read the profile.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_PPROF_H
#define SPOOR_TOOLS_SPOOR_TRACE_PPROF_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/*
 * Writes v's stacks as a gzipped profile to out. Returns 0, -ENOENT for
 * a trace without stacks, -ENOMEM, or -EIO if out failed.
 */
int pprof_convert(struct tview *v, FILE *out);

#endif
