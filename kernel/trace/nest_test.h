/*
 * nest_test: selftest=tracenest, interrupts nested inside the tracepoints'
 * straight path (tracepoint.h), at every instruction of it.
 */
#ifndef SPOOR_TRACE_NEST_TEST_H
#define SPOOR_TRACE_NEST_TEST_H

#include <stdbool.h>

/*
 * Single-steps a few enabled tracepoints on the boot CPU, each step's
 * debug exception writing events of its own in between, then checks the
 * ring, that control operations that fail leave the tracepoint on its
 * straight path, and that another CPU's echo stepped into this CPU's
 * leaves each line its own program's name. Prints "tracenest: ok, ...",
 * "tracenest: a failed TRACK, ..." and "tracenest: echoes ...", or
 * "tracenest: FAILED: ...".
 */
void ttrace_nest_test(void);

/*
 * A debug exception from the kernel: if ttrace_nest_test() is stepping,
 * writes the nested events and returns true; else false (not ours).
 */
bool ttrace_nest_step(void);

#endif
