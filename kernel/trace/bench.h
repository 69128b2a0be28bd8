/*
 * bench: the tracepoint cost benchmark (selftest=tracebench, make bench).
 */
#ifndef SPOOR_TRACE_BENCH_H
#define SPOOR_TRACE_BENCH_H

/* Prints the cost of a tracepoint compiled out, disabled and enabled, and their ratios. */
void ttrace_bench(void);

#endif
