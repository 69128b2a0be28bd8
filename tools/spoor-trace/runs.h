/*
 * runs: which thread ran on each CPU when, from the sched_switch events
 * (prev_tid, prev_state, next_tid), for the converters that draw CPU
 * lanes. Until a CPU's first switch (and again after a loss on it), what
 * ran is unknown; the first switch then says its prev_tid ran since the
 * CPU's first event. A CPU's runs come in time order and never overlap;
 * the idle thread (tid 0) has none.
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
	bool known;   /* tid runs since since */
	uint32_t tid;
	uint64_t since;
	uint64_t first; /* the first event since the start or the last loss */
	uint64_t last;	/* the latest time seen: times never go back */
	uint64_t done;	/* where the last run reported ended */
};

struct truns {
	struct truns_cpu cpu[TTRACE_MAX_CPUS];
	trun_fn fn;
	void *ctx;
};

void truns_start(struct truns *r, trun_fn fn, void *ctx);

/* Feeds the next item of the file; calls fn for each run it ends. */
void truns_item(struct truns *r, const struct tfile_item *item);

/* Ends the runs still open at their CPU's last time. */
void truns_finish(struct truns *r);

#endif
