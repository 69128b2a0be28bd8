/*
 * sieve: a filter over a range already copied (sieve.h). It decides
 * exactly what the merge's matches() decides (common/trace_filter.c's
 * ttrace_filter_match(), the time window, a SELF caller's scope), from
 * the slot's head alone: cat= and kind= become one byte a kind, and
 * since= and until= the TSC values where the window begins and ends,
 * found once by a search over traced_ns(), which never decreases as ts
 * grows, so that ts < since_ts exactly when traced_ns(ts) < since_ns.
 * A save's predicate runs on each event's head slot, whose words are all
 * a predicate can name (abi/trace_pred.h: data words below
 * TTRACE_HEAD_WORDS). The events left out are moved over by whole runs
 * of kept slots, so a range the sieve keeps whole is not moved at all.
 */
#include <string.h>

#include "abi/trace.h"
#include "common/trace_names.h"
#include "servers/traced/pred.h"
#include "servers/traced/ranges.h"
#include "servers/traced/scope.h"
#include "servers/traced/sieve.h"
#include "servers/traced/state.h"

#define SLOT TTRACE_ENTRY_SIZE

/* The first ts whose traced_ns() is at least ns; past every ts when none is. */
static uint64_t ts_of(uint64_t ns)
{
	uint64_t lo = 0, hi = TTRACE_TS_MASK;

	if (traced_ns(hi) < ns) {
		return UINT64_MAX;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (traced_ns(mid) < ns) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

bool sieve_init(struct sieve *s, const struct traced_filter *f, const struct scope *scope)
{
	static struct scope tree; /* one save or recording at a time */
	const uint32_t fl = f->flags;
	const bool by_kind = fl & (TRACED_F_CATS | TRACED_F_KINDS);

	if (fl & (TRACED_F_COUNT | TRACED_F_LAST)) {
		return false;
	}
	*s = (struct sieve){
	    .other_kinds = !by_kind,
	    .cpus = fl & TRACED_F_CPUS ? f->cpus : UINT32_MAX,
	    .flags = fl & (TRACED_F_PID | TRACED_F_TID | TRACED_F_SINCE | TRACED_F_UNTIL),
	    .pid = f->pid,
	    .tid = f->tid,
	    .scope = scope,
	};
	for (uint32_t k = 0; k < SIEVE_KINDS; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		s->pass[k] = (!(fl & TRACED_F_KINDS) || f->kinds[k / 64] >> (k % 64) & 1) &&
			     (!(fl & TRACED_F_CATS) || (info && info->category & f->cats));
	}
	if (fl & TRACED_F_TREE) {
		/* As the merge's: a tree the aux buffer cannot show is the pid alone. */
		if (scope_build(f->pid, &tree)) {
			tree.n = 1;
			tree.pid[0] = f->pid;
		}
		s->tree = &tree;
		s->flags &= ~TRACED_F_PID; /* the tree's set decides instead */
	}
	s->since_ts = fl & TRACED_F_SINCE ? ts_of(f->since_ns) : 0;
	s->until_ts = fl & TRACED_F_UNTIL ? ts_of(f->until_ns) : UINT64_MAX;
	s->more = s->flags || s->tree || s->scope; /* sieve_pred() adds a predicate */
	s->all = !by_kind && !s->more;
	return true;
}

void sieve_pred(struct sieve *s, const struct ttrace_filter_pred *pred)
{
	s->pred = pred;
	s->more |= pred != NULL;
	s->all &= pred == NULL;
}

bool sieve_cpu_out(const struct sieve *s, uint32_t cpu)
{
	return !(s->cpus >> cpu & 1);
}

/* Whether pid is in the tree and the scope, each that there is; asked again only for a new pid. */
static bool in_sets(struct sieve *s, uint32_t pid)
{
	if (!s->memo_valid || s->memo_pid != pid) {
		s->memo_pid = pid;
		s->memo_valid = true;
		s->memo_in = (!s->tree || scope_has(s->tree, pid)) &&
			     (!s->scope || scope_has(s->scope, pid));
	}
	return s->memo_in;
}

/* The tests past the kind's, for a sieve that has any (s->more). */
static bool passes_more(struct sieve *s, const struct ttrace_entry *e)
{
	return !(s->flags & TRACED_F_PID && e->pid != s->pid) &&
	       !(s->flags & TRACED_F_TID && e->tid != s->tid) &&
	       !((s->tree || s->scope) && !in_sets(s, e->pid)) &&
	       !(s->flags & TRACED_F_SINCE && e->ts < s->since_ts) &&
	       !(s->flags & TRACED_F_UNTIL && e->ts >= s->until_ts) &&
	       /* last: it costs the most, and runs only on what the rest kept */
	       (!s->pred || pred_keeps_entry(s->pred, e));
}

/* What a walk over a range's events left: where the kept slots end, what went, the last event. */
struct walked {
	union ttrace_slot *end;
	uint64_t gone, gone_slots;
	const union ttrace_slot *last;
};

/*
 * The walk over the events [p, end): the test of each event's head, the
 * only work an event the sieve keeps costs (its kind's byte, then, with
 * more, the other tests), and the moves of the kept slots over those
 * that go: slots [run, p) are kept and still to move down to w, so
 * nothing moves until an event goes. Inlined twice, with more constant:
 * the walk of a kind filter alone carries none of the other tests.
 */
static inline __attribute__((always_inline)) void
walk(struct sieve *s, union ttrace_slot *p, union ttrace_slot *end, bool more, struct walked *out)
{
	const uint8_t *pass = s->pass;
	const bool other_kinds = s->other_kinds;
	union ttrace_slot *w = p, *run = p, *next;
	uint64_t gone = 0, gone_slots = 0; /* in locals: the range's words may alias the sieve's */

	out->last = NULL;
	for (; p < end; p = next) {
		uint32_t k = p->e.kind;
		next = p + 1 + TTRACE_NCONT_OF(p->e.ctx);
		if (more) {
			out->last = p;
		}
		if ((k < SIEVE_KINDS ? pass[k] : other_kinds) && (!more || passes_more(s, &p->e))) {
			continue;
		}
		gone++;
		gone_slots += (uint64_t)(next - p);
		if (w != run) {
			memmove(w, run, (size_t)(p - run) * SLOT);
		}
		w += p - run;
		run = next;
	}
	if (w != run) {
		memmove(w, run, (size_t)(end - run) * SLOT);
	}
	out->end = w + (end - run);
	out->gone = gone;
	out->gone_slots = gone_slots;
}

void sieve_range(struct sieve *s, uint32_t cpu, uint8_t *out, struct range *r,
		 struct sieve_seen *seen)
{
	union ttrace_slot *p = (union ttrace_slot *)out, *end = p + r->len / SLOT;
	struct walked done;

	*seen = (struct sieve_seen){0};
	if (p < end && p->e.kind == TRACED_KIND_LOST && !p->e.ts) {
		p++; /* the loss marker stays, whatever the filter */
		seen->next_ts = p < end ? p->e.ts : 0;
	}
	if (sieve_cpu_out(s, cpu)) {
		r->len = (size_t)((uint8_t *)p - out);
		r->events = r->entries = 0;
		return;
	}
	if (s->all) {
		return;
	}
	if (s->more) {
		walk(s, p, end, true, &done);
	} else {
		walk(s, p, end, false, &done);
	}
	r->len = (size_t)((uint8_t *)done.end - out);
	r->events -= done.gone;
	r->entries -= done.gone_slots;
	seen->last_ts = done.last ? done.last->e.ts : 0;
}
