/*
 * merge: the stream behind DUMP, FOLLOW and BULK pages (dump.c, bulk.c)
 * and behind SAVE and STATS. Each CPU's ring is read with the lock-free
 * reader of common/trace_ring.c, a batch of events ahead; a page takes
 * the oldest of the CPUs' next events until it is full, so the pages of
 * one dump concatenate into one timestamp-ordered stream, each CPU's own
 * order exact. Loss the reader counts becomes a line (a marker slot in
 * binary) right where it happened in that CPU's stream.
 *
 * Everything a page needs to go on is in the cursor, which the client
 * sends back, so traced keeps no state between requests and a restarted
 * traced continues any dump.
 */
#include <spoor.h>
#include <string.h>

#include "common/trace_filter.h"
#include "common/trace_format.h"
#include "common/trace_names.h"
#include "servers/traced/merge.h"
#include "servers/traced/pred.h"
#include "servers/traced/scope.h"
#include "servers/traced/state.h"

/*
 * How long a source waits at an entry below its end that does not move (a
 * write or a clear in progress) before it skips it as lost: a write takes
 * microseconds, but under emulation on a busy host the writing CPU may be
 * off its host CPU for tens of milliseconds.
 */
#define STUCK_NS 200000000ull
/*
 * The first millisecond of it yields: a write in progress ends within
 * microseconds. After that, one that holds a source up may never end: it
 * sleeps a tick at a time, not to fill this CPU's ring with its yields'
 * events (traced's own are traced) meanwhile.
 */
#define YIELD_NS 1000000ull
#define SLEEP_NS 10000000ull

/* Events a source reads ahead at a time, at most: tracecat -c's batch (make bench). */
#define BATCH 64

/*
 * One CPU's stream: the committed position and the events read ahead of
 * it, a batch at a time (a read has a fixed cost, which a batch pays
 * once). The reader reads on with ahead itself, so at is only where
 * the next page starts: committing does not copy the reader's state.
 * Each event read ahead knows the entries lost just before it, so loss
 * is still reported in place (see peek()).
 */
struct source {
	uint64_t at;		    /* committed: the index before rec[next] */
	bool at_synced;		    /* at starts an event */
	struct ttrace_cursor ahead; /* after rec[n - 1] (or the skipped loss) */
	uint32_t next, n;	    /* rec[next..n) are still to merge */
	struct ttrace_record rec[BATCH];
	uint64_t lost[BATCH]; /* entries lost just before rec[k] */
	uint64_t end;	      /* stop at this index */
	uint64_t prev_ts;     /* the last event merged (prev_known): losses after it are later */
	bool prev_known;
	bool stalled;  /* a follower at the head: nothing new yet */
	bool finished; /* nothing more below end */
};

static bool has_event(const struct source *s)
{
	return s->next < s->n;
}

/* The index after record r: where the next event starts. */
static uint64_t record_end(const struct ttrace_record *r)
{
	return r->index + 1 + r->ncont;
}

struct dump {
	const struct traced_filter *filter;
	struct traced_cursor *cursor;
	uint32_t format;
	bool follow;
	bool counting;		   /* the TRACED_F_LAST pre-pass: count matches, emit nothing */
	const struct scope *scope; /* a SELF caller's processes; NULL: all */
	const struct scope *tree;  /* TRACED_F_TREE: the filter's pid and descendants */
	const struct ttrace_filter_pred *pred; /* a request's predicate; NULL: none */
	bool all;	    /* no filter, scope or predicate: every event matches */
	uint32_t unflushed; /* sources finished or stalled with skipped entries to report */
	uint64_t matches;
	uint32_t page_events;
	uint8_t *out;
	size_t len, max;
	struct source src[TTRACE_MAX_CPUS];
};

static bool matches(const struct traced_filter *f, const struct scope *tree,
		    const struct ttrace_record *r)
{
	/* The time last: only a filter with a window pays for the conversion. */
	return ttrace_filter_match(f, r, tree && scope_has(tree, r->pid)) &&
	       (!(f->flags & (TRACED_F_SINCE | TRACED_F_UNTIL)) ||
		ttrace_filter_in_window(f, traced_ns(r->ts)));
}

/*
 * A new dump starts at each ring's last clear and goes up to the heads:
 * all that is still there, and, counted lost, what was overwritten since
 * the clear. What came before it is no dump's: a clear says so.
 */
void merge_cursor_start(struct traced_cursor *c, bool follow)
{
	c->magic = TRACED_CURSOR_MAGIC;
	c->ncpus = traced.ncpus;
	c->flags = follow ? TRACED_CURSOR_FOLLOW : 0;
	c->synced = (1u << traced.ncpus) - 1;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* acquire: pairs with a clear's release store; head, loaded after, is at least it
		 */
		uint64_t clear =
		    __atomic_load_n(&traced.ring[i].state->clear_index, __ATOMIC_ACQUIRE);
		/* acquire: pairs with the writer's reservation (abi/trace.h W1) */
		uint64_t head = __atomic_load_n(&traced.ring[i].state->head, __ATOMIC_ACQUIRE);
		c->next[i] = follow ? head : clear;
		c->end[i] = follow ? 0 : head;
	}
}

static void sources_init(struct dump *d)
{
	d->unflushed = 0;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct source *s = &d->src[i];
		ttrace_cursor_init(&s->ahead, d->cursor->next[i]);
		s->ahead.synced = d->cursor->synced >> i & 1;
		s->end = d->follow ? UINT64_MAX : d->cursor->end[i];
		s->ahead.end = s->end;
		s->at = s->ahead.index;
		s->at_synced = s->ahead.synced;
		s->next = s->n = 0;
		s->stalled = s->finished = s->prev_known = false;
	}
}

/*
 * Reads source i's next events ahead, unless it has some or has finished:
 * about as many as the page's room could take from every source alike.
 * Between the events of a batch, what the reader skipped is their index
 * gap, and all of it lost, unless a clear discarded part of it (counted
 * apart) or the reader skipped entries after the last one: then the
 * batch is read again as one event, whose loss the reader tells exactly,
 * all of it before the event.
 */
static void peek(struct dump *d, uint32_t i)
{
	struct source *s = &d->src[i];

	if (has_event(s) || s->finished || s->stalled) {
		return;
	}
	size_t room = d->counting ? SIZE_MAX : (d->max - d->len) / sizeof(union ttrace_slot);
	size_t share = room / traced.ncpus;
	size_t max = share < BATCH ? share + 1 : BATCH;
	const struct ttrace_cursor before = s->ahead;

	s->ahead.lost = s->ahead.cleared = 0;
	size_t n = ttrace_ring_read(&traced.ring[i], &s->ahead, s->rec, max);
	if (n && max > 1 && (s->ahead.cleared || s->ahead.index != record_end(&s->rec[n - 1]))) {
		s->ahead = before;
		s->ahead.lost = s->ahead.cleared = 0;
		n = ttrace_ring_read(&traced.ring[i], &s->ahead, s->rec, 1);
	}
	/*
	 * Held up below its end, by a write or a clear in progress: wait a
	 * while for it, then skip it as lost (the rule of common/trace_ring.h),
	 * so that one write that never completes cannot blind every reader.
	 */
	while (!n && s->ahead.index < s->end) {
		uint64_t now = (uint64_t)sys_clock_ns();
		enum ttrace_wait w = ttrace_ring_wait(&traced.ring[i], &s->ahead, now, STUCK_NS);
		if (w == TTRACE_WAIT_NONE) {
			break;
		}
		if (w == TTRACE_WAIT_MORE && now - s->ahead.wait_since < YIELD_NS) {
			sys_yield();
		} else if (w == TTRACE_WAIT_MORE) {
			sys_sleep_ns(SLEEP_NS);
		}
		n = ttrace_ring_read(&traced.ring[i], &s->ahead, s->rec, 1);
	}
	s->next = 0;
	s->n = (uint32_t)n;
	if (n == 1) {
		s->lost[0] = s->ahead.lost;
	}
	for (uint64_t k = 0, from = before.index; n > 1 && k < n; k++) {
		s->lost[k] = s->rec[k].index - from;
		from = record_end(&s->rec[k]);
	}
	if (n) {
		return;
	}
	/*
	 * No event: at end, the reader stopped there (an event starts at a
	 * head value), where the next page's cursor must stay; or a follower
	 * is at the head. What it skipped on the way still gets reported:
	 * only what was overwritten, not what a clear discarded (someone
	 * asked for that).
	 */
	if (s->ahead.index >= s->end) {
		s->finished = true;
	} else {
		s->stalled = true;
	}
	d->unflushed += s->ahead.index != s->at;
}

/* The marker slot of a binary dump for n entries lost on cpu. */
static void lost_slot(union ttrace_slot *slot, uint32_t cpu, uint64_t n)
{
	slot->e = (struct ttrace_entry){.kind = TRACED_KIND_LOST, .cpu = (uint8_t)cpu, .data = {n}};
}

/*
 * The event as the ring held it: its head entry, then its continuations.
 * Every field is set, so no slot is cleared first (the asserts say there
 * is no padding to leave stale).
 */
static void event_slots(union ttrace_slot *slots, const struct ttrace_record *r)
{
	_Static_assert(sizeof(struct ttrace_entry) == 24 + 8 * TTRACE_HEAD_WORDS, "no padding");
	_Static_assert(sizeof(struct ttrace_cont) == 8 + 8 * TTRACE_CONT_WORDS, "no padding");

	slots[0].e.ts = r->ts;
	slots[0].e.seq = (uint32_t)r->index;
	slots[0].e.kind = r->kind;
	slots[0].e.cpu = r->cpu;
	slots[0].e.ctx = TTRACE_CTX_MAKE(r->ctx, r->ncont);
	slots[0].e.pid = r->pid;
	slots[0].e.tid = r->tid;
	/* Word loops the compiler unrolls: a memcpy call costs more than these few words. */
	for (uint32_t w = 0; w < TTRACE_HEAD_WORDS; w++) {
		slots[0].e.data[w] = r->data[w];
	}
	for (uint32_t j = 1; j <= r->ncont; j++) {
		slots[j].c.ts = r->ts | TTRACE_TS_CONT;
		for (uint32_t w = 0; w < TTRACE_CONT_WORDS; w++) {
			slots[j].c.data[w] =
			    r->data[TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS + w];
		}
	}
}

/* emit() of a binary dump: slots straight to the page, which traced only ever writes. */
static bool emit_binary(struct dump *d, uint32_t i, uint64_t lost, const struct ttrace_record *rec)
{
	size_t need = (lost ? sizeof(union ttrace_slot) : 0) +
		      (rec ? sizeof(union ttrace_slot) * (1 + rec->ncont) : 0);

	if (d->len + need > d->max) {
		return false;
	}
	union ttrace_slot *slot = (union ttrace_slot *)(d->out + d->len);
	if (lost) {
		lost_slot(slot++, i, lost);
	}
	if (rec) {
		event_slots(slot, rec);
	}
	d->len += need;
	return true;
}

/* emit() of a text dump. */
static bool emit_text(struct dump *d, uint32_t i, uint64_t lost, const struct ttrace_record *rec)
{
	char text[2 * TTRACE_LINE_MAX + 1]; /* a loss line, then an event's */
	size_t n = 0;

	if (lost) {
		n += (size_t)ttrace_format_lost(text, TTRACE_LINE_MAX, i, lost);
	}
	if (rec) {
		int len = ttrace_format_event(text + n, TTRACE_LINE_MAX, rec, &traced.decoder);
		n += (size_t)len < TTRACE_LINE_MAX ? (size_t)len : TTRACE_LINE_MAX - 1;
		text[n++] = '\n';
	}
	if (d->len + n > d->max) {
		return false;
	}
	memcpy(d->out + d->len, text, n);
	d->len += n;
	return true;
}

/*
 * Appends what source i reports before and with its next event: the loss
 * (if any) and the event (if it has one and it matches). Returns false,
 * having appended nothing, if that does not fit the page.
 */
static bool emit(struct dump *d, uint32_t i, uint64_t lost, const struct ttrace_record *rec)
{
	if (d->counting) {
		return true;
	}
	return d->format == TRACED_FORMAT_BINARY ? emit_binary(d, i, lost, rec)
						 : emit_text(d, i, lost, rec);
}

static bool count_reached(const struct dump *d)
{
	return d->filter->count && d->cursor->events >= d->filter->count && !d->counting;
}

/*
 * Counts the lost entries just below index hi on CPU i, next the event
 * after them (NULL: none), as abi/traced.h LOSSES tells them apart: those
 * that cannot have matched, and of the others those gone before the
 * dump began. Only what the source's own order proves: the event before
 * the loss is known only when this page merged it.
 */
static void classify(struct dump *d, uint32_t i, uint64_t hi, uint64_t lost,
		     const struct ttrace_record *next)
{
	const struct traced_filter *f = d->filter;
	const struct source *s = &d->src[i];
	struct traced_cursor *c = d->cursor;

	if (!lost || d->counting) {
		return;
	}
	if ((f->flags & TRACED_F_CPUS && !(f->cpus >> i & 1)) ||
	    (f->flags & TRACED_F_SINCE && next && traced_ns(next->ts) < f->since_ns) ||
	    (f->flags & TRACED_F_UNTIL && s->prev_known && traced_ns(s->prev_ts) >= f->until_ns) ||
	    c->skip || (c->flags & TRACED_CURSOR_FULL && !c->events)) {
		c->outside += lost;
		return;
	}
	/* The oldest index the ring still held when the dump began: its heads then, less a ring. */
	uint64_t held = c->end[i] > traced.ring[i].entries ? c->end[i] - traced.ring[i].entries : 0;
	uint64_t lo = hi - lost;
	if (!d->follow && lo < held) {
		c->early += held - lo < lost ? held - lo : lost;
	}
}

/* Moves source i to index (synced: an event starts there), past lost entries lost. */
static void commit(struct dump *d, uint32_t i, uint64_t index, bool synced, uint64_t lost)
{
	struct source *s = &d->src[i];

	s->at = index;
	s->at_synced = synced;
	if (!d->counting) {
		d->cursor->lost += lost;
	}
}

/* Whether source a's next event goes before source b's: the older, or on a tie, the lower CPU. */
static bool before(const struct dump *d, uint32_t a, uint32_t b)
{
	uint64_t ta = d->src[a].rec[d->src[a].next].ts, tb = d->src[b].rec[d->src[b].next].ts;

	return ta < tb || (ta == tb && a < b);
}

/*
 * The source whose next event is oldest, or -1 when none has one; *runner
 * the one whose next event comes after it, or -1.
 */
static int oldest(struct dump *d, int *runner)
{
	int best = -1;

	*runner = -1;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		if (!has_event(&d->src[i])) {
			peek(d, i);
		}
		if (!has_event(&d->src[i])) {
			continue;
		}
		if (best < 0 || before(d, i, (uint32_t)best)) {
			*runner = best;
			best = (int)i;
		} else if (*runner < 0 || before(d, i, (uint32_t)*runner)) {
			*runner = (int)i;
		}
	}
	return best;
}

/* Reports the loss of sources that finished or stalled after skipping entries. */
static bool flush_loss(struct dump *d)
{
	for (uint32_t i = 0; i < traced.ncpus && d->unflushed; i++) {
		struct source *s = &d->src[i];
		if (!has_event(s) && (s->finished || s->stalled) && s->ahead.index != s->at) {
			uint64_t lost = s->ahead.lost;
			if (!emit(d, i, lost, NULL)) {
				return false;
			}
			classify(d, i, s->ahead.index, lost, NULL);
			commit(d, i, s->ahead.index, s->ahead.synced, lost);
			d->unflushed--;
		}
	}
	return true;
}

/* Merges source i's next event: false, having changed nothing, if it does not fit the page. */
static bool take(struct dump *d, uint32_t i)
{
	struct source *s = &d->src[i];
	const struct ttrace_record *rec = &s->rec[s->next];
	uint64_t lost = s->lost[s->next];
	bool match = d->all || (matches(d->filter, d->tree, rec) &&
				(!d->scope || scope_has(d->scope, rec->pid)) &&
				(!d->pred || pred_keeps_record(d->pred, rec)));
	bool show = match && !d->cursor->skip;

	if (!emit(d, i, lost, show ? rec : NULL)) {
		return false;
	}
	classify(d, i, rec->index, lost, rec);
	commit(d, i, record_end(rec), true, lost);
	s->prev_ts = rec->ts;
	s->prev_known = true;
	s->next++;
	if (d->counting && match) {
		d->matches++;
	} else if (match && d->cursor->skip) {
		d->cursor->skip--;
	} else if (show) {
		d->cursor->events++;
		d->page_events++;
	}
	return true;
}

/*
 * take()'s loop for BULK's common case, a binary dump of everything: no
 * filter, scope, count or skip, so every event is shown and nothing but
 * its slots and the counts need doing. Kept apart, with its state in
 * locals, because the slot stores may alias struct dump's fields as far
 * as the compiler knows, and reloading them was most of a merged event's
 * cost. Returns false when the page is full.
 */
static bool run_all(struct dump *d, uint32_t i, int runner)
{
	struct source *s = &d->src[i];
	union ttrace_slot *slot = (union ttrace_slot *)(d->out + d->len);
	size_t room = (d->max - d->len) / sizeof(*slot);
	uint64_t bound = runner < 0 ? UINT64_MAX : d->src[runner].rec[d->src[runner].next].ts;
	bool ties = runner < 0 || i < (uint32_t)runner; /* a tie with the runner-up goes to i */
	uint32_t next = s->next;
	uint64_t lost_sum = 0, events = 0;
	bool fits = true;

	for (; next < s->n; next++) {
		const struct ttrace_record *rec = &s->rec[next];
		uint64_t lost = s->lost[next];
		size_t need = (lost != 0) + 1 + (size_t)rec->ncont;
		if (rec->ts > bound || (rec->ts == bound && !ties)) {
			break;
		}
		if (need > room) {
			fits = false;
			break;
		}
		if (lost) {
			lost_slot(slot++, i, lost);
			classify(d, i, rec->index, lost, rec); /* no filter: only early or not */
		}
		event_slots(slot, rec);
		slot += 1 + rec->ncont;
		room -= need;
		lost_sum += lost;
		events++;
	}
	if (next != s->next) {
		commit(d, i, record_end(&s->rec[next - 1]), true, lost_sum);
		s->next = next;
	}
	d->len = (size_t)((uint8_t *)slot - d->out);
	d->cursor->events += events;
	d->page_events += (uint32_t)events;
	return fits;
}

/* Runs the merge until the page is full or the stream ends; true when it ended. */
static bool merge(struct dump *d)
{
	for (;;) {
		if (count_reached(d)) {
			return true;
		}
		int runner;
		int i = oldest(d, &runner);
		if (!flush_loss(d)) {
			return false;
		}
		if (i < 0) {
			break;
		}
		/*
		 * A run of source i's events: until the runner-up's next event
		 * comes first, or i's read-ahead runs out. No source reads
		 * meanwhile, so the other sources' next events stay what
		 * oldest() compared.
		 */
		if (d->all && d->format == TRACED_FORMAT_BINARY) {
			if (!run_all(d, (uint32_t)i, runner)) {
				return false;
			}
			continue;
		}
		do {
			if (!take(d, (uint32_t)i)) {
				return false;
			}
		} while (has_event(&d->src[i]) && !count_reached(d) &&
			 (runner < 0 || before(d, (uint32_t)i, (uint32_t)runner)));
	}
	return !d->follow;
}

/* Stores each source's position back into the cursor. */
static void sources_save(struct dump *d)
{
	d->cursor->synced = 0;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		d->cursor->next[i] = d->src[i].at;
		d->cursor->synced |= (uint32_t)d->src[i].at_synced << i;
	}
}

/* TRACED_F_LAST on a new dump: pass over all matches but the last count. */
static void skip_to_last(struct dump *d)
{
	d->counting = true;
	d->matches = 0;
	sources_init(d);
	(void)merge(d); /* counting emits nothing: it runs to the end at once */
	d->counting = false;
	d->cursor->skip = d->matches > d->filter->count ? d->matches - d->filter->count : 0;
	if (d->matches >= d->filter->count) {
		d->cursor->flags |= TRACED_CURSOR_FULL;
	}
}

bool merge_fill(uint32_t how, const struct traced_filter *f, struct traced_cursor *c,
		uint32_t format, struct merge_piece *piece)
{
	static struct dump d;

	memset(&d, 0, sizeof(d));
	d.filter = f;
	d.cursor = c;
	d.format = format;
	d.follow = how == MERGE_FOLLOW;
	d.out = piece->out;
	d.max = piece->max;
	d.scope = piece->scope;
	d.pred = piece->pred;
	d.all = !f->flags && !d.scope && !d.pred;
	if (f->flags & TRACED_F_TREE) {
		static struct scope tree; /* one dump at a time */
		/* A tree the aux buffer cannot show is the pid alone. */
		if (scope_build(f->pid, &tree)) {
			tree.n = 1;
			tree.pid[0] = f->pid;
		}
		d.tree = &tree;
	}
	if (!c->magic) {
		merge_cursor_start(c, d.follow);
		if (f->flags & TRACED_F_LAST) {
			skip_to_last(&d);
		}
	}
	sources_init(&d);
	bool done = merge(&d);
	sources_save(&d);
	piece->len = d.len;
	piece->events = d.page_events;
	return done;
}
