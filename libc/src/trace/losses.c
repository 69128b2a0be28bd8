/*
 * losses: what a dump's losses mean for the question it asked (abi/traced.h
 * LOSSES and DATA), in the lines traced puts after a dump's end line and a
 * STATS answer's head, and the shell after a save's summary: how many lost
 * entries could not have matched, how many may have and when they went,
 * and, when nothing was found, what keeps such events. traced's merge
 * tells the losses apart; this only words them, in one place.
 */
#include <trace_client.h>

#include "common/format.h"

/* Starts another part of a line: "; " between parts. */
static void part(struct format_buf *b, bool *first)
{
	if (!*first) {
		format_buf_printf(b, "; ");
	}
	*first = false;
}

size_t traced_losses_format(char *buf, size_t size, const struct traced_losses *c)
{
	struct format_buf out = format_buf_start(buf, size);
	struct format_buf *b = &out;
	uint64_t maybe = c->lost - c->outside, during = maybe - c->early;
	bool first = true;

	if (!c->lost) {
		return 0;
	}
	format_buf_printf(b, "# of the %llu lost: ", (unsigned long long)c->lost);
	if (c->outside) {
		part(b, &first);
		format_buf_printf(
		    b,
		    "%llu could not have matched (on CPUs the filter leaves out, or outside the "
		    "window it asks for)",
		    (unsigned long long)c->outside);
	}
	if (c->early && during) {
		part(b, &first);
		format_buf_printf(
		    b,
		    "%llu overwritten before the dump began and %llu while it read may have held "
		    "matching events",
		    (unsigned long long)c->early, (unsigned long long)during);
	} else if (maybe) {
		part(b, &first);
		format_buf_printf(b, "%llu overwritten %s may have held matching events",
				  (unsigned long long)maybe,
				  c->early ? "before the dump began" : "while the dump read");
	}
	format_buf_printf(b, "\n");
	if (c->events || !maybe) {
		return out.len;
	}
	first = true;
	format_buf_printf(b, "# nothing found, but what was lost may have matched: ");
	if (during) {
		part(b, &first);
		format_buf_printf(b,
				  "trace off before dumping keeps the rings from overwriting it");
	}
	if (c->early) {
		part(b, &first);
		format_buf_printf(
		    b, "trace mode drop keeps the oldest events, a bigger ttrace.ring_kb (kernel "
		       "command line) more of them");
	}
	format_buf_printf(b, "\n");
	return out.len;
}
