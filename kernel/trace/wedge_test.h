/*
 * wedge_test: selftest=tracewedge, a CPU wedged inside a write to its
 * ring, for the readers' rule on a slot whose write never completes
 * (common/trace_ring.h, ttrace_ring_wait()).
 */
#ifndef SPOOR_TRACE_WEDGE_TEST_H
#define SPOOR_TRACE_WEDGE_TEST_H

/*
 * Makes the last CPU reserve the next slot of its ring, mark it being
 * written (W1, W2) and stop there for good, interrupts masked, as a CPU
 * wedged inside a tracepoint would; the boot CPU boots on. Prints
 * "selftest tracewedge: cpu N stops writing index I ...". Needs 2 CPUs.
 */
void ttrace_wedge_test(void);

/*
 * inject=recwedge: as ttrace_wedge_test(), but only if the last CPU runs
 * its idle thread when the IPI lands (else nothing: the caller asks again
 * later), and only once a boot.
 */
void ttrace_wedge_idle(void);

#endif
