/*
 * echo: the kernel's console echo of events (abi/trace.h TTRACE_OP_ECHO,
 * ttrace.echo= on the command line), for a boot that never reaches
 * traced: each echoed event is printed as a dump's line when the kernel
 * records it, at most TTRACE_ECHO_RATE lines a second so the console
 * never holds the kernel back; the rest are counted and reported.
 */
#ifndef SPOOR_TRACE_ECHO_H
#define SPOOR_TRACE_ECHO_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_header.h"
#include "common/trace_ring.h"

/* Boot CPU, once the area is set up: readies the echo's decoders for area a. */
void echo_init(const struct ttrace_area *a);

/*
 * Prints rec's line, unless this second's lines are used up (then it is
 * counted). Any context, on the CPU that recorded rec; takes the console
 * lock, with interrupts off, as printk does.
 */
void echo_event(const struct ttrace_record *rec);

/*
 * Writes the line echo_event() prints for rec into buf (size bytes, cut
 * to fit): through the decoder of the CPU that recorded rec, interrupts
 * masked, so the echoes of other CPUs and of this CPU's interrupts never
 * share its cache of program names mid-lookup. Returns its length as
 * ttrace_format_event() does. rec->cpu must be one of the area's CPUs.
 * Any context.
 */
int echo_format(char *buf, size_t size, const struct ttrace_record *rec);

/* Reports the events skipped in a second that has ended, if any; the timer calls it. */
void echo_report(uint64_t now_tsc);

#endif
