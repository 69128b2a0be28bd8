/*
 * probe_test: selftest=probestale, what the kernel probes (probe.h) do
 * where no system test can reach: a hit on the boot CPU's own call, and
 * a breakpoint trap that finds its probe removed since.
 */
#ifndef SPOOR_TRACE_PROBE_TEST_H
#define SPOOR_TRACE_PROBE_TEST_H

/*
 * Sets a probe in timer_now_ns(), calls it, removes the probe, then hands
 * probe_breakpoint() the frame of a trap taken on that int3 before the
 * removal, and that of an int3 no probe set. Prints "probestale: ok, ..."
 * or "probestale: FAILED: ...". Thread context, interrupts on.
 */
void probe_stale_test(void);

#endif
