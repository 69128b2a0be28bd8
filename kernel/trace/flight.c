/*
 * flight: every CPU's counters and the last events of one CPU's ring,
 * decoded, for the panic block and the lockup detector's report (see
 * ktrace.h). Lock-free: the other CPUs may be stopped anywhere.
 */
#include "trace/flight.h"

#include "common/trace_ring.h"
#include "lib/printk.h"
#include "trace/area.h"
#include "trace/recorder.h"

#define FLIGHT_RECORDER_EVENTS 16

struct ttrace_decoder decoder;

void ttrace_panic_dump(uint32_t cpu)
{
	if (!area.hdr) {
		return;
	}
	printk("trace counters:\n");
	for (uint32_t i = 0; i < area.hdr->num_cpus; i++) {
		struct ttrace_counts n;
		if (!ring_of(i)) {
			continue; /* no CPU came online there: it has written nothing */
		}
		if (ttrace_ring_counts(ring_of(i), &n)) {
			/* a clear stopped halfway: its counters cannot be read whole */
			printk("  cpu %u: counters busy (a clear was in progress)\n", i);
			continue;
		}
		printk("  cpu %u: emitted=%lu stored=%lu overwritten=%lu dropped=%lu cleared=%lu",
		       i, n.emitted, n.stored, n.overwritten, n.dropped, n.cleared);
		/* only when there are any: the line stays as it was without filters */
		printk(n.filtered ? " filtered=%lu\n" : "\n", n.filtered);
	}
	ttrace_flight_recorder(cpu);
}

size_t ttrace_flight_recorder(uint32_t cpu)
{
	static struct ttrace_record records[FLIGHT_RECORDER_EVENTS * 4];
	static char line[256];
	uint64_t skipped;

	if (!area.hdr || cpu >= area.hdr->num_cpus || !ring_of(cpu)) {
		return 0;
	}
	size_t n = recorder_read(ring_of(cpu), FLIGHT_RECORDER_EVENTS * 4, records,
				 FLIGHT_RECORDER_EVENTS * 4, &skipped);
	size_t first = n > FLIGHT_RECORDER_EVENTS ? n - FLIGHT_RECORDER_EVENTS : 0;
	printk("flight recorder: last %lu events on cpu %u", n - first, cpu);
	if (skipped) {
		printk(" (%lu slots being written, skipped)", skipped);
	}
	printk("\n");
	for (size_t i = first; i < n; i++) {
		ttrace_format_event(line, sizeof(line), &records[i], &decoder);
		printk("  %s\n", line);
	}
	return n - first;
}
