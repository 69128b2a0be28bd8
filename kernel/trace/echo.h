/*
 * echo: the kernel's console echo of events (abi/trace.h TTRACE_OP_ECHO,
 * ttrace.echo= on the command line), for a boot that never reaches
 * traced: each echoed event is printed as a dump's line when the kernel
 * records it, at most TTRACE_ECHO_RATE lines a second so the console
 * never holds the kernel back; the rest are counted and reported.
 */
#ifndef SPOOR_TRACE_ECHO_H
#define SPOOR_TRACE_ECHO_H

#include <stdint.h>

#include "common/trace_decoder.h"
#include "common/trace_ring.h"

/*
 * Prints rec's line through d, unless this second's lines are used up
 * (then it is counted). Any context; takes the console lock, with
 * interrupts off, as printk does.
 */
void echo_event(const struct ttrace_record *rec, struct ttrace_decoder *d);

/* Reports the events skipped in a second that has ended, if any; the timer calls it. */
void echo_report(uint64_t now_tsc);

#endif
