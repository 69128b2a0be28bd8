/*
 * runs: the per-CPU state machine of runs.h. Times are clamped so that a
 * CPU's clock never goes back, which keeps its runs in order even when
 * its events' timestamps do not quite.
 */
#include "tools/spoor-trace/runs.h"

#include <string.h>

void truns_start(struct truns *r, trun_fn fn, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->fn = fn;
	r->ctx = ctx;
}

static void report(struct truns *r, uint32_t cpu, uint32_t tid, uint64_t start, uint64_t end)
{
	struct truns_cpu *c = &r->cpu[cpu];
	struct trun run = {.cpu = cpu, .tid = tid};

	if (!tid && !r->idle) {
		return;
	}
	run.start = start > c->done ? start : c->done;
	run.end = end > run.start ? end : run.start;
	c->done = run.end;
	r->fn(r->ctx, &run);
}

void truns_item(struct truns *r, const struct tfile_item *item)
{
	if (item->lost) {
		struct truns_cpu *c = &r->cpu[item->lost_cpu];
		if (c->known) {
			report(r, item->lost_cpu, c->tid, c->since, c->last);
		}
		c->known = c->started = false;
		c->lossy = true;
		return;
	}
	const struct ttrace_record *e = &item->rec;
	struct truns_cpu *c = &r->cpu[e->cpu];
	uint64_t t = e->ts > c->last ? e->ts : c->last;
	bool sw = e->kind == TTRACE_KIND_sched_switch;

	c->last = t;
	if (!c->started) {
		c->started = true;
		/* The first switch: its previous thread ran as long as the trace can tell. */
		c->since = sw && !c->lossy && r->begin && r->begin < t ? r->begin : t;
	}
	if (sw) {
		/* Before the first switch since a loss, its prev_tid alone says who ran. */
		report(r, e->cpu, c->known ? c->tid : (uint32_t)e->data[0], c->since, t);
		c->known = true;
		c->tid = (uint32_t)e->data[2];
		c->since = t;
	}
}

void truns_finish(struct truns *r)
{
	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		struct truns_cpu *c = &r->cpu[i];
		if (c->known) {
			/* No switch since the last: its thread ran on as long as the trace can
			 * tell. */
			report(r, i, c->tid, c->since, r->end > c->last ? r->end : c->last);
		}
		c->started = c->known = false;
	}
}
