/*
 * Tests common/trace_ring.c, the per-CPU event rings. Every operation is
 * also applied to a model that keeps the state of each entry (stored,
 * overwritten, cleared) slot by slot, the way a ring behaves physically,
 * without the index arithmetic the code uses; after every step the
 * counters must equal the model's, and a fresh reader must return exactly
 * the events the model says are whole, each with the right payload, and
 * count the rest as lost or cleared. Table rows add the numbers worked
 * out by hand; a seeded random run covers the rest. Areas are malloc'ed
 * to the exact size of each region, so AddressSanitizer catches a stray
 * slot.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "test.h"
#include "trace/ring_write.h"
#include "writers.h"

#define ENTRIES	   16 /* the smallest ring: wraps quickly */
#define MAX_INDEX  4096
#define MAX_EVENTS MAX_INDEX
#define READ_MAX   (ENTRIES + 1)

/* An area with rings of entries slots on ncpus CPUs; release with test_area_put(). */
static void ring_area(struct ttrace_area *a, uint32_t ncpus, uint32_t entries, bool with_reader)
{
	const struct ttrace_geometry g = {.num_cpus = ncpus,
					  .ring_entries = entries,
					  .aux_ring_size = TTRACE_AUX_RING_MIN,
					  .tsc_hz = 1000000000};

	test_area_get(a, &g, with_reader);
}

/*
 * The event with tag t that takes nslots slots: its fields and words all
 * follow from t, so a reader's copy can be checked against it.
 */
static struct ttrace_event make_event(uint32_t t, uint32_t nslots, uint64_t *data)
{
	uint32_t nwords = nslots == 1 ? t % (TTRACE_HEAD_WORDS + 1)
				      : TTRACE_HEAD_WORDS + (nslots - 2) * TTRACE_CONT_WORDS + 1 +
					    t % TTRACE_CONT_WORDS;

	for (uint32_t w = 0; w < nwords; w++) {
		data[w] = (uint64_t)t * 100 + w + 1;
	}
	/* bits 0 and 63 set: the ring must drop both */
	return (struct ttrace_event){.ts = (uint64_t)t << 4 | 1 | 1ull << 63,
				     .pid = t,
				     .tid = 3 * t,
				     .kind = TTRACE_KIND_test_tick,
				     .ctx = t % 5,
				     .nwords = (uint8_t)nwords,
				     .data = data};
}

/* Checks that rec is event t of nslots slots at index, read from CPU cpu. */
static void check_record(const struct ttrace_record *rec, uint64_t index, uint32_t t,
			 uint32_t nslots, uint32_t cpu, const char *what)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};
	struct ttrace_event ev = make_event(t, nslots, data);

	CHECK_EQ_UINT(rec->index, index, what);
	CHECK_EQ_UINT(rec->ts, (uint64_t)t << 4, what);
	CHECK_EQ_UINT(rec->pid, ev.pid, what);
	CHECK_EQ_UINT(rec->tid, ev.tid, what);
	CHECK_EQ_UINT(rec->kind, ev.kind, what);
	CHECK_EQ_UINT(rec->cpu, cpu, what);
	CHECK_EQ_UINT(rec->ctx, ev.ctx, what);
	CHECK_EQ_UINT(rec->ncont, nslots - 1, what);
	for (uint32_t w = 0; w < TTRACE_EVENT_WORDS_MAX; w++) {
		CHECK(rec->data[w] == data[w], "%s: word %u is %#llx, expected %#llx", what, w,
		      (unsigned long long)rec->data[w], (unsigned long long)data[w]);
	}
}

/* The model: what each entry has become, kept slot by slot. */
enum { ENTRY_STORED = 1, ENTRY_OVERWRITTEN, ENTRY_CLEARED };

struct model_event {
	uint64_t first;
	uint32_t nslots;
	uint32_t tag;
};

struct model {
	uint32_t mode;
	uint64_t head, dropped, tail, clear;
	uint8_t state[MAX_INDEX];
	uint64_t occupant[ENTRIES]; /* index + 1 of the entry in each slot, 0 if none */
	struct model_event ev[MAX_EVENTS];
	size_t nev;
};

static void model_init(struct model *m, uint32_t mode)
{
	memset(m, 0, sizeof(*m));
	m->mode = mode;
}

/* Drop mode refuses a write that would overwrite a stored entry the reader has not consumed. */
static bool model_write(struct model *m, uint32_t nslots, uint32_t tag)
{
	for (uint32_t k = 0; m->mode == TTRACE_MODE_DROP && k < nslots; k++) {
		uint64_t o = m->occupant[(m->head + k) % ENTRIES];

		if (o && m->state[o - 1] == ENTRY_STORED && o - 1 >= m->tail) {
			m->dropped += nslots;
			return false;
		}
	}
	for (uint32_t k = 0; k < nslots; k++) {
		uint64_t *o = &m->occupant[(m->head + k) % ENTRIES];

		if (*o && m->state[*o - 1] == ENTRY_STORED) {
			m->state[*o - 1] = ENTRY_OVERWRITTEN;
		}
		*o = m->head + k + 1;
		m->state[m->head + k] = ENTRY_STORED;
	}
	m->ev[m->nev++] = (struct model_event){.first = m->head, .nslots = nslots, .tag = tag};
	m->head += nslots;
	return true;
}

static void model_clear(struct model *m)
{
	for (uint64_t i = 0; i < m->head; i++) {
		if (m->state[i] == ENTRY_STORED) {
			m->state[i] = ENTRY_CLEARED;
		}
	}
	m->clear = m->head;
}

static uint64_t model_count(const struct model *m, uint8_t state)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < m->head; i++) {
		n += m->state[i] == state;
	}
	return n;
}

static bool model_whole(const struct model *m, const struct model_event *e)
{
	for (uint32_t k = 0; k < e->nslots; k++) {
		if (m->state[e->first + k] != ENTRY_STORED) {
			return false;
		}
	}
	return true;
}

/* The counters must be the model's, and add up. */
static void check_counts(const struct ttrace_ring *r, const struct model *m, const char *what)
{
	struct ttrace_counts c;

	CHECK_EQ_INT(ttrace_ring_counts(r, &c), 0, what);
	CHECK_EQ_UINT(c.head, m->head, what);
	CHECK_EQ_UINT(c.emitted, m->head + m->dropped, what);
	CHECK_EQ_UINT(c.stored, model_count(m, ENTRY_STORED), what);
	CHECK_EQ_UINT(c.overwritten, model_count(m, ENTRY_OVERWRITTEN), what);
	CHECK_EQ_UINT(c.cleared, model_count(m, ENTRY_CLEARED), what);
	CHECK_EQ_UINT(c.dropped, m->dropped, what);
	CHECK_EQ_UINT(c.stored + c.overwritten + c.dropped + c.cleared, c.emitted, what);
}

/*
 * A fresh reader from index 0 must return every whole event after the
 * last clear, count each entry before it as the model says it went
 * (cleared, or overwritten: lost), and every other entry as lost.
 * Returns the records it read.
 */
static size_t check_fresh_read(const struct ttrace_ring *r, const struct model *m, const char *what)
{
	struct ttrace_record out[READ_MAX];
	struct ttrace_cursor c;
	uint64_t lost = 0, cleared = 0;
	size_t n, want = 0;

	ttrace_cursor_init(&c, 0);
	n = ttrace_ring_read(r, &c, out, READ_MAX);
	for (size_t i = 0; i < m->nev; i++) {
		const struct model_event *e = &m->ev[i];

		if (e->first < m->clear) {
			for (uint32_t k = 0; k < e->nslots; k++) {
				cleared += m->state[e->first + k] == ENTRY_CLEARED;
				lost += m->state[e->first + k] == ENTRY_OVERWRITTEN;
			}
		} else if (!model_whole(m, e)) {
			lost += e->nslots;
		} else if (want < n) {
			check_record(&out[want++], e->first, e->tag, e->nslots, r->cpu, what);
		} else {
			want++;
		}
	}
	CHECK_EQ_UINT(n, want, what);
	CHECK_EQ_UINT(c.lost, lost, what);
	CHECK_EQ_UINT(c.cleared, cleared, what);
	CHECK_EQ_UINT(c.index, m->head, what);
	CHECK_EQ_UINT(ttrace_ring_read(r, &c, out, READ_MAX), 0, what);
	return n;
}

/* The ring under test, its model and a streaming reader that publishes its tail. */
struct rig {
	struct ttrace_area a;
	struct ttrace_ring r;
	struct model m;
	struct ttrace_cursor stream;
	uint64_t received;   /* entries the streaming reader got */
	bool got[MAX_INDEX]; /* by index: an entry the streaming reader got */
	/* The entries it skipped, by the model's state when it passed them. */
	uint64_t skipped_cleared, skipped_other;
	uint32_t next_tag;
	bool tail_forced; /* a tail was published ahead of the streaming reader */
};

static void rig_get(struct rig *g, uint32_t mode)
{
	ring_area(&g->a, 1, ENTRIES, true);
	g->a.hdr->mode = mode;
	ttrace_ring_get(&g->r, &g->a, 0);
	model_init(&g->m, mode);
	ttrace_cursor_init(&g->stream, 0);
	g->received = 0;
	memset(g->got, 0, sizeof(g->got));
	g->skipped_cleared = g->skipped_other = 0;
	g->next_tag = 1;
	g->tail_forced = false;
}

static void rig_write(struct rig *g, uint32_t nslots, const char *what)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	uint32_t t = g->next_tag++;
	struct ttrace_event ev = make_event(t, nslots, data);
	bool want = model_write(&g->m, nslots, t);

	CHECK_EQ_INT(host_slow_write(&g->r, &ev), want, what);
}

/* An interrupt's write of inner slots between the reserve and commit of outer ones. */
static void rig_nested(struct rig *g, uint32_t outer, uint32_t inner, const char *what)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	uint32_t t = g->next_tag++;
	struct ttrace_event ev = make_event(t, outer, data);
	uint64_t index;
	bool want = model_write(&g->m, outer, t);
	bool got = ttrace_ring_reserve(&g->r, outer, &index);

	CHECK_EQ_INT(got, want, what);
	rig_write(g, inner, what);
	if (got) {
		ttrace_ring_commit(&g->r, index, &ev);
	}
}

/* The streaming reader reads all it can, checks it against the model and publishes its tail. */
static void rig_stream(struct rig *g, size_t batch, const char *what)
{
	struct ttrace_record out[READ_MAX];
	size_t n;

	do {
		uint64_t from = g->stream.index;

		n = ttrace_ring_read(&g->r, &g->stream, out, batch);
		for (size_t i = 0; i < n; i++) {
			const struct model_event *e = NULL;

			for (size_t k = 0; k < g->m.nev && !e; k++) {
				e = g->m.ev[k].first == out[i].index ? &g->m.ev[k] : NULL;
			}
			CHECK(e != NULL, "%s: no event at index %llu", what,
			      (unsigned long long)out[i].index);
			if (e) {
				check_record(&out[i], e->first, e->tag, e->nslots, 0, what);
				g->received += e->nslots;
				memset(&g->got[e->first], 1, e->nslots);
			}
		}
		for (uint64_t i = from; i < g->stream.index; i++) {
			if (!g->got[i]) {
				g->skipped_cleared += g->m.state[i] == ENTRY_CLEARED;
				g->skipped_other += g->m.state[i] != ENTRY_CLEARED;
			}
		}
	} while (n);
	CHECK_EQ_INT(ttrace_ring_publish_tail(&g->r, g->stream.index), 0, what);
	g->m.tail = g->stream.index;
}

static void rig_clear(struct rig *g)
{
	ttrace_ring_clear(&g->r);
	model_clear(&g->m);
}

/*
 * The streaming reader's split of what it skipped is the ledger's: the
 * entries the model had cleared when the reader passed them are its
 * cleared, all others (overwritten, or continuations it could not read
 * without their head entry) its lost.
 */
static void check_stream_split(const struct rig *g, const char *what)
{
	CHECK_EQ_UINT(g->stream.cleared, g->skipped_cleared, what);
	CHECK_EQ_UINT(g->stream.lost, g->skipped_other, what);
}

/*
 * After the last step: the streaming reader accounts for every entry, as
 * the ledger does, and in drop mode loses none, unless a tail was
 * published ahead of it.
 */
static void rig_check_stream(struct rig *g, const char *what)
{
	rig_stream(g, READ_MAX, what);
	CHECK_EQ_UINT(g->received + g->stream.lost + g->stream.cleared, g->m.head, what);
	check_stream_split(g, what);
	if (g->m.mode == TTRACE_MODE_DROP && !g->tail_forced) {
		CHECK_EQ_UINT(g->stream.lost, 0, what);
	}
}

struct ring_row {
	const char *name;
	uint32_t mode;
	/*
	 * Steps: wK one event of K slots (wK*M: M of them), nA:B a write of B
	 * slots nested in one of A, c clear, r the streaming reader reads all
	 * and publishes its tail, tN a tail of N published.
	 */
	const char *steps;
	uint64_t stored, overwritten, dropped, cleared;
	/* What a fresh reader from index 0 gets at the end. */
	size_t records;
	uint64_t lost, skipped;
};

#define OVERWRITE TTRACE_MODE_OVERWRITE
#define DROP	  TTRACE_MODE_DROP

static const struct ring_row ring_rows[] = {
    {"fills without wrapping", OVERWRITE, "w1*10", 10, 0, 0, 0, 10, 0, 0},
    {"wraps and overwrites the oldest", OVERWRITE, "w1*20", 16, 4, 0, 0, 16, 4, 0},
    {"every event size", OVERWRITE, "w1 w2 w3 w4", 10, 0, 0, 0, 4, 0, 0},
    {"continuations", OVERWRITE, "w4*3", 12, 0, 0, 0, 3, 0, 0},
    {"continuations across the ring end", OVERWRITE, "w1*3 w4*4", 16, 3, 0, 0, 4, 3, 0},
    {"orphan continuations are lost, not returned", OVERWRITE, "w4 w1*13", 16, 1, 0, 0, 13, 4, 0},
    {"many laps", OVERWRITE, "w3*50 w2 w1*7", 16, 143, 0, 0, 10, 144, 0},
    {"drop mode keeps the oldest", DROP, "w1*20", 16, 0, 4, 0, 16, 0, 0},
    {"drop mode drops whole events", DROP, "w4*5", 16, 0, 4, 0, 4, 0, 0},
    {"drop mode drops what does not fit", DROP, "w1*14 w4 w1*2", 16, 0, 4, 0, 16, 0, 0},
    {"drop mode reuses what the reader consumed", DROP, "w1*16 r w1*10", 16, 10, 0, 0, 16, 10, 0},
    {"drop mode with a lagging tail", DROP, "w1*16 t8 w1*10", 16, 8, 2, 0, 16, 8, 0},
    {"drop mode takes a tail above head as head", DROP, "w1*16 t1000 w1*4", 16, 4, 0, 0, 16, 4, 0},
    {"clear discards what is stored", OVERWRITE, "w1*10 c w1*3", 3, 0, 0, 10, 3, 0, 10},
    {"clear after a wrap", OVERWRITE, "w1*20 c", 0, 4, 0, 16, 0, 4, 16},
    {"two clears", OVERWRITE, "w1*5 c w1*5 c w1*2", 2, 0, 0, 10, 2, 0, 10},
    {"overwrites, then clears, twice", OVERWRITE, "w1*20 c w1*20 c w1*3", 3, 8, 0, 32, 3, 8, 32},
    {"overwrites across clears of every size", OVERWRITE, "w3*9 c w1*3 c w2*11 c c w4*2", 8, 17, 0,
     35, 2, 17, 35},
    {"clear makes room in drop mode", DROP, "w1*20 c w1*5", 5, 0, 4, 16, 5, 0, 16},
    {"streaming reader in overwrite mode", OVERWRITE, "w2*5 r w2*10 r w4*2", 16, 22, 0, 0, 6, 22,
     0},
    {"nested writes take the next indices", OVERWRITE, "n2:1 n4:4", 11, 0, 0, 0, 4, 0, 0},
    {"a nested write is dropped when the ring is full", DROP, "w1*13 n2:2", 15, 0, 2, 0, 14, 0, 0},
};

/* Runs one step of a row's script; returns false on a step it cannot parse. */
static bool run_step(struct rig *g, const char *step, const char *what)
{
	unsigned a = 0, b = 1;

	switch (step[0]) {
	case 'w':
		if (sscanf(step, "w%u*%u", &a, &b) < 1) {
			return false;
		}
		for (unsigned i = 0; i < b; i++) {
			rig_write(g, a, what);
		}
		return true;
	case 'n':
		if (sscanf(step, "n%u:%u", &a, &b) != 2) {
			return false;
		}
		rig_nested(g, a, b, what);
		return true;
	case 'c':
		rig_clear(g);
		return true;
	case 'r':
		rig_stream(g, 3, what);
		return true;
	case 't':
		if (sscanf(step, "t%u", &a) != 1) {
			return false;
		}
		CHECK_EQ_INT(ttrace_ring_publish_tail(&g->r, a), 0, what);
		g->m.tail = a;
		g->tail_forced = true;
		return true;
	default:
		return false;
	}
}

TEST(trace_ring_rows_count_exactly_after_every_step)
{
	for (size_t i = 0; i < sizeof(ring_rows) / sizeof(ring_rows[0]); i++) {
		const struct ring_row *row = &ring_rows[i];
		char steps[128], what[160];
		struct ttrace_counts c;
		struct rig g;

		rig_get(&g, row->mode);
		snprintf(steps, sizeof(steps), "%s", row->steps);
		for (char *save, *step = strtok_r(steps, " ", &save); step;
		     step = strtok_r(NULL, " ", &save)) {
			snprintf(what, sizeof(what), "%s, after %s", row->name, step);
			CHECK(run_step(&g, step, what), "%s: bad step", what);
			check_counts(&g.r, &g.m, what);
			check_fresh_read(&g.r, &g.m, what);
		}
		CHECK_EQ_INT(ttrace_ring_counts(&g.r, &c), 0, row->name);
		CHECK_EQ_UINT(c.stored, row->stored, row->name);
		CHECK_EQ_UINT(c.overwritten, row->overwritten, row->name);
		CHECK_EQ_UINT(c.dropped, row->dropped, row->name);
		CHECK_EQ_UINT(c.cleared, row->cleared, row->name);

		struct ttrace_record out[READ_MAX];
		struct ttrace_cursor cur;

		ttrace_cursor_init(&cur, 0);
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &cur, out, READ_MAX), row->records, row->name);
		CHECK_EQ_UINT(cur.lost, row->lost, row->name);
		CHECK_EQ_UINT(cur.cleared, row->skipped, row->name);
		rig_check_stream(&g, row->name);
		test_area_put(&g.a);
	}
}

TEST(trace_ring_random_steps_match_the_model)
{
	static const uint32_t modes[] = {TTRACE_MODE_OVERWRITE, TTRACE_MODE_DROP};

	for (size_t mi = 0; mi < 2; mi++) {
		for (unsigned seed = 1; seed <= 20; seed++) {
			char what[64];
			struct rig g;

			srand(seed);
			rig_get(&g, modes[mi]);
			snprintf(what, sizeof(what), "mode %u seed %u", modes[mi], seed);
			while (g.m.head + TTRACE_CONT_MAX * 2 + 2 < MAX_INDEX &&
			       g.m.nev + 2 < MAX_EVENTS) {
				int op = rand() % 100;

				if (op < 70) {
					rig_write(&g, 1 + rand() % (1 + TTRACE_CONT_MAX), what);
				} else if (op < 75) {
					rig_nested(&g, 1 + rand() % (1 + TTRACE_CONT_MAX),
						   1 + rand() % (1 + TTRACE_CONT_MAX), what);
				} else if (op < 97) {
					rig_stream(&g, 1 + rand() % 5, what);
					check_stream_split(&g, what);
				} else {
					rig_clear(&g);
				}
				check_counts(&g.r, &g.m, what);
				if (op % 4 == 0) {
					check_fresh_read(&g.r, &g.m, what);
				}
			}
			rig_check_stream(&g, what);
			test_area_put(&g.a);
		}
	}
}

/*
 * A new overwrite-mode rig whose streaming reader consumed entries 0..3
 * and was then lapped: entries up to 34 written, 0..17 overwritten.
 */
static void rig_consumed_then_lapped(struct rig *g)
{
	rig_get(g, TTRACE_MODE_OVERWRITE);
	for (int i = 0; i < 4; i++) {
		rig_write(g, 1, "before");
	}
	rig_stream(g, READ_MAX, "read all");
	for (int i = 0; i < 30; i++) {
		rig_write(g, 1, "lapping");
	}
}

/*
 * A reader that consumed events, was lapped and then saw clears: of what
 * it skipped, the entries overwritten before the first clear are lost and
 * those the clears discarded are cleared, as the ledger counts them; the
 * same for a cursor that knows nothing of its past (traced's next page),
 * and, up to its end, for a dump. The first clear takes 18..33; a second,
 * after five more writes, 34..38. Which entries the first took depends on
 * where head was when it ran, which the clear log keeps.
 */
TEST(trace_ring_reader_splits_clears_after_overwrites_as_the_ledger_does)
{
	static const struct {
		const char *name;
		int clears;
		uint64_t dump_end, cleared, dump_lost, dump_cleared;
	} rows[] = {
	    {"one clear: 18..33 cleared; a dump up to 10 lost 4..9", 1, 10, 16, 6, 0},
	    {"two clears: 18..38 cleared; a dump up to 20 lost 4..17, skipped 18..19", 2, 20, 21,
	     14, 2},
	};

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct ttrace_record out[READ_MAX];
		struct ttrace_cursor page, dump;
		struct ttrace_counts counts;
		const char *what = rows[k].name;
		struct rig g;

		rig_consumed_then_lapped(&g);
		rig_clear(&g);
		for (int c = 1; c < rows[k].clears; c++) {
			for (int i = 0; i < 5; i++) {
				rig_write(&g, 1, "between the clears");
			}
			rig_clear(&g);
		}
		ttrace_cursor_init(&page, 4);
		ttrace_cursor_init(&dump, 4);
		dump.end = rows[k].dump_end;
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.stream, out, READ_MAX), 0, what);
		CHECK_EQ_INT(ttrace_ring_counts(&g.r, &counts), 0, what);
		CHECK_EQ_UINT(counts.overwritten, 18, what);
		CHECK_EQ_UINT(counts.cleared, rows[k].cleared, what);
		CHECK_EQ_UINT(g.stream.lost, 14, what);
		CHECK_EQ_UINT(g.stream.cleared, rows[k].cleared, what);
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &page, out, READ_MAX), 0, what);
		CHECK_EQ_UINT(page.lost, 14, what);
		CHECK_EQ_UINT(page.cleared, rows[k].cleared, what);
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &dump, out, READ_MAX), 0, what);
		CHECK_EQ_UINT(dump.lost, rows[k].dump_lost, what);
		CHECK_EQ_UINT(dump.cleared, rows[k].dump_cleared, what);
		CHECK_EQ_UINT(dump.index, rows[k].dump_end, what);
		test_area_put(&g.a);
	}
}

/*
 * The log holds a ring's last TTRACE_CLEAR_LOG clears: a reader that
 * consumed entries and was lapped, then missed that many, still splits
 * exactly; one more, and the oldest clear's part of what it skipped,
 * where overwritten and cleared entries meet, is no longer told apart:
 * all of it counts cleared (abi/trace.h, R1).
 */
TEST(trace_ring_reader_splits_exactly_while_the_log_holds_the_clears)
{
	for (int extra = 0; extra <= 1; extra++) {
		struct ttrace_record out[READ_MAX];
		struct ttrace_counts counts;
		struct rig g;

		rig_consumed_then_lapped(&g);
		for (int k = 0; k < TTRACE_CLEAR_LOG + extra; k++) {
			rig_clear(&g); /* the first: 4..17 overwritten, 18..33 cleared */
			rig_write(&g, 1, "between the clears");
		}
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.stream, out, READ_MAX), 1, "the last one");
		CHECK_EQ_INT(ttrace_ring_counts(&g.r, &counts), 0, "counts");
		CHECK_EQ_UINT(counts.cleared, 16 + TTRACE_CLEAR_LOG - 1 + extra, "the ledger");
		CHECK_EQ_UINT(g.stream.cleared, counts.cleared + (extra ? 14 : 0),
			      "the reader: 4..17 cleared too, past the log");
		CHECK_EQ_UINT(g.stream.lost, extra ? 0 : 14, "lost: 4..17 while the log holds it");
		test_area_put(&g.a);
	}
}

/*
 * A streaming reader in drop mode, two clears behind: the writers never
 * overwrote what it had not consumed, so all it skipped counts cleared,
 * and nothing lost, as the ledger has it.
 */
TEST(trace_ring_reader_two_clears_behind_in_drop_mode_loses_nothing)
{
	struct ttrace_counts counts;
	struct rig g;

	rig_get(&g, TTRACE_MODE_DROP);
	for (int i = 0; i < ENTRIES; i++) {
		rig_write(&g, 1, "fill");
	}
	rig_stream(&g, READ_MAX, "read all");
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < ENTRIES; i++) {
			rig_write(&g, 1, "fill again");
		}
		rig_clear(&g);
	}
	rig_stream(&g, READ_MAX, "after the clears");
	CHECK_EQ_INT(ttrace_ring_counts(&g.r, &counts), 0, "counts");
	CHECK_EQ_UINT(counts.cleared, 2 * ENTRIES, "the ledger: both clears took a ring");
	CHECK_EQ_UINT(g.stream.cleared, 2 * ENTRIES, "the reader skipped them as cleared");
	CHECK_EQ_UINT(g.stream.lost, 0, "and lost nothing");
	test_area_put(&g.a);
}

TEST(trace_ring_reader_waits_for_an_entry_being_written)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	struct ttrace_event outer = make_event(1000, 2, data);
	struct ttrace_record out[READ_MAX];
	struct ttrace_cursor c;
	struct rig g;
	uint64_t index;

	rig_get(&g, TTRACE_MODE_OVERWRITE);
	for (int i = 0; i < ENTRIES; i++) {
		rig_write(&g, 1, "a lap");
	}
	ttrace_cursor_init(&c, ENTRIES);
	CHECK(ttrace_ring_reserve(&g.r, 2, &index), "reserve");
	CHECK_EQ_UINT(index, ENTRIES, "the next index");
	rig_write(&g, 1, "nested"); /* tag 17, index 18 */
	/* reserved, not marked yet: the slot still holds index 0 of the older lap */
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), 0, "reserved");
	/* marked, seq written, ts not published yet */
	g.r.slots[0].word[0] = TTRACE_TS_WRITING;
	g.r.slots[0].e.seq = ENTRIES;
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), 0, "being written");
	CHECK_EQ_UINT(c.index, ENTRIES, "the cursor waits");
	ttrace_ring_commit(&g.r, index, &outer);
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), 2, "committed");
	check_record(&out[0], ENTRIES, 1000, 2, 0, "the interrupted event comes first");
	check_record(&out[1], ENTRIES + 2, 17, 1, 0, "the nested one after it");
	CHECK_EQ_UINT(c.lost + c.cleared, 0, "nothing lost");
	test_area_put(&g.a);
}

/*
 * A clear paused between taking head and publishing clear_index, while
 * the writer laps the ring past a streaming reader: the entries the
 * reader missed below the clear's head are the clear's (the ledger counts
 * them cleared), so the reader waits for the clear to end rather than
 * count them lost, then splits them as the ledger does.
 */
TEST(trace_ring_reader_waits_for_a_clear_paused_mid_way)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	struct ttrace_record out[READ_MAX];
	struct ttrace_clearing clearing;
	struct ttrace_counts counts;
	struct ttrace_cursor c;
	struct ttrace_area a;
	struct ttrace_ring r;
	uint32_t t = 0;

	ring_area(&a, 1, ENTRIES, false);
	ttrace_ring_get(&r, &a, 0);
	for (; t < 10; t++) {
		struct ttrace_event ev = make_event(t, 1, data);
		CHECK(host_slow_write(&r, &ev), "write %u", t);
	}
	ttrace_cursor_init(&c, 0);
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, 5), 5, "the reader reads 0..4");
	ttrace_ring_clear_begin(&r, &clearing);
	CHECK_EQ_UINT(clearing.head, 10, "the clear takes head 10");
	for (; t < 10 + ENTRIES; t++) {
		struct ttrace_event ev = make_event(t, 1, data);
		CHECK(host_slow_write(&r, &ev), "write %u", t);
	}
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, READ_MAX), 0, "lapped, the clear in progress");
	CHECK_EQ_UINT(c.lost + c.cleared, 0, "nothing counted before the clear ends");
	CHECK_EQ_UINT(c.index, 5, "the cursor waits");
	ttrace_ring_clear_end(&r, &clearing);
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, READ_MAX), ENTRIES, "the lap after the clear");
	check_record(&out[0], 10, 10, 1, 0, "the first entry after the clear");
	CHECK_EQ_INT(ttrace_ring_counts(&r, &counts), 0, "counts");
	CHECK_EQ_UINT(counts.cleared, 10, "the ledger: the clear took 0..9");
	CHECK_EQ_UINT(counts.overwritten, 0, "and nothing was overwritten");
	CHECK_EQ_UINT(c.cleared, 5, "the reader: 5..9 cleared, as the ledger has them");
	CHECK_EQ_UINT(c.lost, counts.overwritten, "none lost");
	test_area_put(&a);
}

/*
 * In drop mode a reader more than a ring behind clear_index, all of it
 * cleared by two clears that ended, while a third is in progress: it
 * waits for the snapshot rather than guess the split (it once counted
 * the entries below the last ring lost: ring_stress's "lost in drop
 * mode"), and only a reader that gives up on the clear (R6) guesses.
 */
TEST(trace_ring_reader_below_two_clears_waits_for_a_third_in_progress)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	struct ttrace_record out[READ_MAX];
	struct ttrace_clearing clearing;
	struct ttrace_cursor c, giving_up;
	struct ttrace_area a;
	struct ttrace_ring r;
	uint32_t t = 0;

	ring_area(&a, 1, ENTRIES, true);
	a.hdr->mode = TTRACE_MODE_DROP;
	ttrace_ring_get(&r, &a, 0);
	for (; t < 10; t++) {
		struct ttrace_event ev = make_event(t, 1, data);
		CHECK(host_slow_write(&r, &ev), "write %u", t);
	}
	ttrace_cursor_init(&c, 0);
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, 5), 5, "the reader reads 0..4");
	CHECK_EQ_INT(ttrace_ring_publish_tail(&r, c.index), 0, "and publishes its tail");
	ttrace_ring_clear(&r);
	for (; t < 10 + ENTRIES; t++) {
		struct ttrace_event ev = make_event(t, 1, data);
		CHECK(host_slow_write(&r, &ev), "write %u over the cleared", t);
	}
	ttrace_ring_clear(&r);
	ttrace_ring_clear_begin(&r, &clearing);
	giving_up = c;
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, READ_MAX), 0, "a clear in progress");
	CHECK_EQ_UINT(c.index, 5, "the cursor waits");
	CHECK_EQ_UINT(c.lost + c.cleared, 0, "nothing counted yet");
	CHECK_EQ_INT(ttrace_ring_wait(&r, &giving_up, 0, 0), TTRACE_WAIT_SKIPPED, "R6 skips");
	CHECK_EQ_UINT(giving_up.index, 10 + ENTRIES, "to clear_index");
	CHECK_EQ_UINT(giving_up.cleared, ENTRIES, "a ring below it cleared");
	CHECK_EQ_UINT(giving_up.lost, 5, "the rest lost");
	CHECK_EQ_UINT(giving_up.stuck, 5, "and said so");
	ttrace_ring_clear_end(&r, &clearing);
	CHECK_EQ_UINT(ttrace_ring_read(&r, &c, out, READ_MAX), 0, "nothing after the clears");
	CHECK_EQ_UINT(c.index, 10 + ENTRIES, "the cursor at the clears' head");
	CHECK_EQ_UINT(c.cleared, 5 + ENTRIES, "every entry it missed cleared");
	CHECK_EQ_UINT(c.lost, 0, "none lost in drop mode");
	test_area_put(&a);
}

TEST(trace_ring_never_publishes_the_ts_a_slot_already_holds)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};
	struct ttrace_event ev = {.ts = 100, .kind = TTRACE_KIND_test_tick, .data = data};
	struct ttrace_record out[READ_MAX];
	struct ttrace_cursor c;
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE);
	for (int i = 0; i < ENTRIES + 2; i++) {
		CHECK(host_slow_write(&g.r, &ev), "write %d", i);
	}
	ttrace_cursor_init(&c, ENTRIES - 1);
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), 3, "three events");
	CHECK_EQ_UINT(out[0].ts, 100, "first lap: the slot held no ts");
	/* a reader must never take the old entry's ts for the new one's (R5) */
	CHECK_EQ_UINT(out[1].ts, 102, "second lap: bit 1 flipped");
	CHECK_EQ_UINT(out[2].ts, 102, "second lap again");
	test_area_put(&g.a);
}

TEST(trace_ring_reader_skips_entries_reserved_over_again)
{
	struct ttrace_record out[READ_MAX];
	struct ttrace_cursor c;
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE);
	for (int i = 0; i < ENTRIES; i++) {
		rig_write(&g, 1, "fill");
	}
	/* a writer has reserved a whole ring more and not written any of it yet */
	g.a.hdr->cpu[0].head += ENTRIES;
	ttrace_cursor_init(&c, 0);
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), 0, "no stale entry returned");
	CHECK_EQ_UINT(c.lost, ENTRIES, "the reserved-over entries are lost");
	CHECK_EQ_UINT(c.index, ENTRIES, "waiting for the new lap");
	test_area_put(&g.a);
}

TEST(trace_ring_cursor_from_the_newest_entries)
{
	static const struct {
		uint32_t nslots, events, last;
		size_t records;
		uint64_t lost;
	} rows[] = {
	    {1, 40, 5, 5, 0},  /* the 5 newest */
	    {4, 10, 6, 1, 2},  /* starts in an event: its two continuations are skipped */
	    {1, 3, 10, 3, 0},  /* fewer than asked for */
	    {2, 20, 16, 8, 0}, /* a whole ring */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ttrace_record out[READ_MAX];
		struct ttrace_cursor c;
		char what[32];
		struct rig g;

		snprintf(what, sizeof(what), "row %zu", i);
		rig_get(&g, TTRACE_MODE_OVERWRITE);
		for (uint32_t e = 0; e < rows[i].events; e++) {
			rig_write(&g, rows[i].nslots, what);
		}
		ttrace_cursor_init_last(&c, &g.r, rows[i].last);
		CHECK_EQ_UINT(ttrace_ring_read(&g.r, &c, out, READ_MAX), rows[i].records, what);
		CHECK_EQ_UINT(c.lost, rows[i].lost, what);
		CHECK_EQ_UINT(c.index, g.m.head, what);
		test_area_put(&g.a);
	}
}

TEST(trace_ring_cpus_are_independent)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	struct ttrace_event ev = make_event(7, 3, data);
	struct ttrace_record out[READ_MAX];
	struct ttrace_ring r0, r2;
	struct ttrace_counts c;
	struct ttrace_cursor cur;
	struct ttrace_area a;

	ring_area(&a, 3, ENTRIES, true);
	ttrace_ring_get(&r0, &a, 0);
	ttrace_ring_get(&r2, &a, 2);
	for (int i = 0; i < 20; i++) {
		CHECK(host_slow_write(&r2, &ev), "write %d", i);
	}
	ttrace_ring_clear(&r0);
	CHECK_EQ_INT(ttrace_ring_counts(&r0, &c), 0, "cpu 0");
	CHECK_EQ_UINT(c.emitted + c.cleared, 0, "cpu 0 untouched");
	CHECK_EQ_INT(ttrace_ring_counts(&r2, &c), 0, "cpu 2");
	CHECK_EQ_UINT(c.emitted, 60, "cpu 2 emitted");
	CHECK_EQ_UINT(c.stored, 16, "cpu 2 stored");
	CHECK_EQ_UINT(c.overwritten, 44, "cpu 2 overwritten");
	ttrace_cursor_init(&cur, 0);
	CHECK_EQ_UINT(ttrace_ring_read(&r2, &cur, out, READ_MAX), 5, "cpu 2 events");
	check_record(&out[4], 57, 7, 3, 2, "cpu 2's newest event");
	test_area_put(&a);
}

TEST(trace_ring_takes_the_largest_event)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};
	struct ttrace_event ev = {
	    .kind = TTRACE_KIND_user, .nwords = TTRACE_EVENT_WORDS_MAX, .data = data};
	struct ttrace_counts c;
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE);
	CHECK(host_slow_write(&g.r, &ev), "the largest event is taken");
	CHECK_EQ_INT(ttrace_ring_counts(&g.r, &c), 0, "counts");
	CHECK_EQ_UINT(c.stored, 1 + TTRACE_CONT_MAX, "in four slots");
	test_area_put(&g.a);
}

TEST(trace_ring_counts_give_up_on_a_clear_that_never_ends)
{
	struct ttrace_counts c;
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE);
	rig_write(&g, 2, "write");
	g.a.hdr->cpu[0].clear_seq = 1; /* a clear stopped half way */
	CHECK_EQ_INT(ttrace_ring_counts(&g.r, &c), -EBUSY, "in progress for good");
	CHECK_EQ_UINT(c.stored, 2, "the last try is still returned");
	test_area_put(&g.a);
}

TEST(trace_ring_tail_needs_the_reader_page)
{
	struct ttrace_ring r;
	struct ttrace_area a;

	ring_area(&a, 1, ENTRIES, false);
	ttrace_ring_get(&r, &a, 0);
	CHECK_EQ_INT(ttrace_ring_publish_tail(&r, 5), -EACCES, "no reader page");
	test_area_put(&a);
}
