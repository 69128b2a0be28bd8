/*
 * stop_test: selftest=tracenest's part on two CPUs: a CPU stopped inside a
 * tracepoint's straight path (tracepoint.h) while a control operation
 * moves the sites to the slow path, at every instruction of it.
 */
#ifndef SPOOR_TRACE_STOP_TEST_H
#define SPOOR_TRACE_STOP_TEST_H

#include <stdbool.h>

/*
 * The boot CPU's half, after ttrace_nest_test(): has the second CPU step
 * through a tracepoint, its ring full, stops it after each of its steps
 * in turn while drop mode comes on, and checks that no event was written
 * past its reservation's place in time. Prints "tracenest: a cpu stopped
 * ..." or "tracenest: FAILED: ...". Thread context, interrupts on.
 */
void ttrace_stop_test(void);

/*
 * The second CPU's half, from its start-up path once it is online,
 * interrupts on, before it idles: fills its ring, then runs the passes the
 * boot CPU asks for until ttrace_stop_test() ends. Returns at once on any
 * other CPU.
 */
void ttrace_stop_test_ap(void);

/*
 * A debug exception from the kernel: if the second CPU is stepping for
 * ttrace_stop_test_ap(), does what its step asks and returns true; else
 * false (not ours).
 */
bool ttrace_stop_step(void);

#endif
