/*
 * runs: which thread ran on each CPU when, for the converters that draw
 * CPU lanes. Only sched_switch events (prev_tid, prev_state, next_tid)
 * say how long a thread ran; every other event names the thread running
 * on its CPU at that instant only, and says nothing of the time between
 * two events (the thread may have blocked and the CPU idled, unseen). So:
 *   - after a switch, next_tid runs until the next switch;
 *   - a CPU's first switch, and the first after a loss on it, says its
 *     prev_tid ran since the CPU's first event (after the loss), as
 *     switches were traced from there on;
 *   - before that, and wherever no switch was traced at all (a trace
 *     without the sched category), there is no run: who ran is not known.
 * A CPU's runs come in time order and never overlap; tid 0 (no thread:
 * boot, idle) has none unless the caller sets idle.
 *
 * A CPU that sits idle writes no events, so its first and last runs may
 * be stretched to what the trace can tell, when the caller sets begin and
 * end (TSCs, the trace's first and last event): a CPU's first switch
 * (with nothing lost on it before) says its previous thread ran since
 * begin, and the thread its last switch ran (with nothing lost after)
 * still runs at end. Both assume the sched category was on throughout.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_RUNS_H
#define SPOOR_TOOLS_SPOOR_TRACE_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/spoor-trace/file.h"

struct trun {
	uint32_t cpu;
	uint32_t tid;
	uint64_t start, end; /* TSC; start <= end */
};

typedef void (*trun_fn)(void *ctx, const struct trun *run);

struct truns_cpu {
	bool started; /* an event was seen since the start or the last loss */
	bool known;   /* a switch said tid runs: since then, no loss */
	bool lossy;   /* a loss was seen on this CPU */
	uint32_t tid; /* known: the switch's next_tid */
	uint64_t since;
	uint64_t last; /* the latest time seen: times never go back */
	uint64_t done; /* where the last run reported ended */
};

struct truns {
	struct truns_cpu cpu[TTRACE_MAX_CPUS];
	trun_fn fn;
	void *ctx;
	/* Set after truns_start(), as the caller wants: */
	bool idle;	     /* report tid 0's runs too */
	uint64_t begin, end; /* stretch the first and last runs (0: no) */
};

void truns_start(struct truns *r, trun_fn fn, void *ctx);

/* Feeds the next item of the file; calls fn for each run it ends. */
void truns_item(struct truns *r, const struct tfile_item *item);

/* Ends the runs still open at their CPU's last time. */
void truns_finish(struct truns *r);

#endif
