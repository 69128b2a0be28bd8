/*
 * Tests the fast path of kernel/trace/ring_write.c, one-slot events, with
 * writes nested between a reserve and its commit, as an interrupt's write
 * nests in the one it interrupted on the ring's CPU: the interrupted event
 * keeps the index it reserved, the nested ones take the next, a reader
 * waits at the interrupted one until it is committed and then returns
 * every event exactly, in index order, and the ledger adds up exactly.
 * Each case runs in both modes, on a fresh ring and on one that has
 * lapped (its slots still hold older entries, which a reader must not
 * take for the ones being written). The last test lets a timer signal
 * write into the ring whenever it lands, inside the reservation too: the
 * reservation must be one step an interrupt cannot split.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "abi/trace.h"
#include "area.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "test.h"
#include "trace/ring_write.h"

#define ENTRIES	 16
#define READ_MAX (ENTRIES + 4)

/* Event tag t: its fields and nwords (0..5, one slot) all follow from t. */
struct tagged {
	struct ttrace_event ev;
	uint64_t data[TTRACE_HEAD_WORDS];
};

static void make(struct tagged *e, uint32_t t)
{
	uint8_t nwords = (uint8_t)(t % (TTRACE_HEAD_WORDS + 1));

	for (uint32_t w = 0; w < TTRACE_HEAD_WORDS; w++) {
		e->data[w] = w < nwords ? (uint64_t)t << 8 | (w + 1) : 0;
	}
	/* bits 0 and 63 set: the ring keeps neither */
	e->ev = (struct ttrace_event){.ts = (uint64_t)t << 4 | 1 | 1ull << 63,
				      .pid = 1000 + t,
				      .tid = 2000 + t,
				      .kind = TTRACE_KIND_test_tick,
				      .ctx = (uint8_t)(t % 5),
				      .nwords = nwords,
				      .data = e->data};
}

/* rec must be event t, at index, exactly: every field, words past nwords zero. */
static void check(const struct ttrace_record *rec, uint64_t index, uint32_t t, const char *what)
{
	struct tagged e;

	make(&e, t);
	CHECK_EQ_UINT(rec->index, index, what);
	CHECK_EQ_UINT(rec->ts, (uint64_t)t << 4, what);
	CHECK_EQ_UINT(rec->pid, e.ev.pid, what);
	CHECK_EQ_UINT(rec->tid, e.ev.tid, what);
	CHECK_EQ_UINT(rec->kind, e.ev.kind, what);
	CHECK_EQ_UINT(rec->cpu, 0, what);
	CHECK_EQ_UINT(rec->ctx, e.ev.ctx, what);
	CHECK_EQ_UINT(rec->ncont, 0, what);
	for (uint32_t w = 0; w < TTRACE_EVENT_WORDS_MAX; w++) {
		uint64_t want = w < TTRACE_HEAD_WORDS ? e.data[w] : 0;

		CHECK(rec->data[w] == want, "%s: word %u is %#llx, expected %#llx", what, w,
		      (unsigned long long)rec->data[w], (unsigned long long)want);
	}
}

/* One ring of entries slots in mode, maybe with a reader page, and a streaming reader's cursor. */
struct rig {
	struct ttrace_area a;
	struct ttrace_ring r;
	struct ttrace_cursor c;
	uint32_t next_tag;
	uint64_t written; /* entries the writers were asked for */
};

static void rig_get(struct rig *g, uint32_t mode, bool with_reader, uint32_t entries)
{
	const struct ttrace_geometry geo = {.num_cpus = 1,
					    .ring_entries = entries,
					    .aux_ring_size = TTRACE_AUX_RING_MIN,
					    .tsc_hz = 1000000000};

	test_area_get(&g->a, &geo, with_reader);
	g->a.hdr->mode = mode;
	ttrace_ring_get(&g->r, &g->a, 0);
	ttrace_cursor_init(&g->c, 0);
	g->next_tag = 1;
	g->written = 0;
}

/*
 * Writes n whole events, one at a time, each consumed by the streaming
 * reader as it comes (so drop mode may reuse the slots): the ring laps
 * and nothing is lost.
 */
static void rig_lap(struct rig *g, uint32_t n, const char *what)
{
	struct ttrace_record out[READ_MAX];

	for (uint32_t i = 0; i < n; i++) {
		struct tagged e;

		make(&e, g->next_tag++);
		g->written++;
		CHECK(ttrace_ring_write(&g->r, &e.ev), "%s: lap write %u", what, i);
		CHECK_EQ_UINT(ttrace_ring_read(&g->r, &g->c, out, READ_MAX), 1, what);
		CHECK_EQ_INT(ttrace_ring_publish_tail(&g->r, g->c.index), 0, what);
	}
	CHECK_EQ_UINT(g->c.index, g->written, what);
	CHECK_EQ_UINT(g->c.lost, 0, what);
}

#define ANY_DROPPED UINT64_MAX /* check_ledger(): dropped is not known in advance */

/*
 * The ledger: emitted = stored + overwritten + dropped + cleared, emitted
 * as written, and dropped as expected (unless ANY_DROPPED).
 */
static void check_ledger(const struct rig *g, uint64_t dropped, const char *what)
{
	struct ttrace_counts n;
	uint64_t entries = g->r.entries;

	CHECK_EQ_INT(ttrace_ring_counts(&g->r, &n), 0, what);
	CHECK_EQ_UINT(n.emitted, g->written, what);
	if (dropped != ANY_DROPPED) {
		CHECK_EQ_UINT(n.dropped, dropped, what);
	}
	CHECK_EQ_UINT(n.cleared, 0, what);
	CHECK_EQ_UINT(n.stored + n.overwritten + n.dropped + n.cleared, n.emitted, what);
	CHECK_EQ_UINT(n.stored, n.head < entries ? n.head : entries, what);
}

/*
 * depth writes reserved one inside the other, then one whole write inside
 * the innermost, then the commits from the innermost out: the reader sees
 * nothing until the outermost commits, then all of them in index order.
 */
static void nested_case(uint32_t mode, bool lapped, uint32_t depth)
{
	char what[96];
	struct rig g;
	struct tagged e[4];
	uint64_t index[4];
	struct ttrace_record out[READ_MAX];

	snprintf(what, sizeof(what), "%s, %s ring, %u reserved",
		 mode == TTRACE_MODE_DROP ? "drop" : "overwrite", lapped ? "lapped" : "fresh",
		 depth);
	rig_get(&g, mode, true, ENTRIES);
	if (lapped) {
		rig_lap(&g, ENTRIES + 3, what);
	}
	uint64_t first = g.written;
	uint32_t tag0 = g.next_tag;

	for (uint32_t k = 0; k < depth; k++) {
		make(&e[k], g.next_tag++);
		g.written++;
		CHECK(ttrace_ring_reserve(&g.r, 1, &index[k]), "%s: reserve %u", what, k);
		CHECK_EQ_UINT(index[k], first + k, what);
	}
	make(&e[depth], g.next_tag++);
	g.written++;
	CHECK(ttrace_ring_write(&g.r, &e[depth].ev), "%s: the nested write", what);

	/* reserved, not committed: the reader waits at the outermost, losing nothing */
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), 0, what);
	CHECK_EQ_UINT(g.c.index, first, what);
	for (uint32_t k = depth; k-- > 0;) {
		ttrace_ring_commit(&g.r, index[k], &e[k].ev);
		if (k) {
			CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), 0, what);
		}
	}
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), depth + 1, what);
	for (uint32_t k = 0; k <= depth; k++) {
		check(&out[k], first + k, tag0 + k, what);
	}
	CHECK_EQ_UINT(g.c.lost, 0, what);
	CHECK_EQ_UINT(g.c.cleared, 0, what);
	CHECK_EQ_UINT(g.c.index, g.written, what);
	check_ledger(&g, 0, what);
	test_area_put(&g.a);
}

TEST(ring_nested_write_between_reserve_and_commit)
{
	const uint32_t modes[] = {TTRACE_MODE_OVERWRITE, TTRACE_MODE_DROP};

	for (uint32_t m = 0; m < 2; m++) {
		for (uint32_t lapped = 0; lapped < 2; lapped++) {
			for (uint32_t depth = 1; depth <= 3; depth++) {
				nested_case(modes[m], lapped, depth);
			}
		}
	}
}

/* Every word count of the fast path, interrupted by every other: zeros past nwords each time. */
TEST(ring_nested_fast_path_every_word_count)
{
	struct ttrace_record out[READ_MAX];
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE, false, ENTRIES);
	for (uint32_t outer = 0; outer <= TTRACE_HEAD_WORDS; outer++) {
		for (uint32_t inner = 0; inner <= TTRACE_HEAD_WORDS; inner++) {
			char what[64];
			struct tagged o, i;
			uint64_t index;
			/* tags whose word counts are outer and inner (t % 6) */
			uint32_t to = 6 * (g.next_tag / 6 + 1) + outer;
			uint32_t ti = to + 6 + (inner + 6 - outer) % 6;

			snprintf(what, sizeof(what), "%u words around %u", outer, inner);
			g.next_tag = ti + 1;
			make(&o, to);
			make(&i, ti);
			CHECK(ttrace_ring_reserve(&g.r, 1, &index), "%s: reserve", what);
			CHECK(ttrace_ring_write(&g.r, &i.ev), "%s: nested", what);
			ttrace_ring_commit(&g.r, index, &o.ev);
			g.written += 2;
			CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), 2, what);
			check(&out[0], index, to, what);
			check(&out[1], index + 1, ti, what);
			CHECK_EQ_UINT(g.c.lost, 0, what);
		}
	}
	check_ledger(&g, 0, "every word count");
	test_area_put(&g.a);
}

/*
 * Drop mode with no reader page keeps what it has once full: the
 * interrupted write took the last free slot, so the nested one is
 * dropped and counted, and the interrupted one still reads back whole.
 */
TEST(ring_nested_write_dropped_behind_the_last_slot)
{
	struct ttrace_record out[READ_MAX];
	struct tagged o, i;
	struct rig g;
	uint64_t index;

	rig_get(&g, TTRACE_MODE_DROP, false, ENTRIES);
	for (uint32_t k = 0; k < ENTRIES - 1; k++) {
		struct tagged e;

		make(&e, g.next_tag++);
		g.written++;
		CHECK(ttrace_ring_write(&g.r, &e.ev), "fill %u", k);
	}
	make(&o, g.next_tag++);
	make(&i, g.next_tag++);
	g.written += 2;
	CHECK(ttrace_ring_reserve(&g.r, 1, &index), "the last slot");
	CHECK_EQ_UINT(index, ENTRIES - 1, "the last slot");
	CHECK(!ttrace_ring_write(&g.r, &i.ev), "the nested write is dropped");
	ttrace_ring_commit(&g.r, index, &o.ev);
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), ENTRIES, "a full ring");
	check(&out[ENTRIES - 1], ENTRIES - 1, g.next_tag - 2, "the interrupted event");
	CHECK_EQ_UINT(g.c.lost, 0, "nothing lost");
	check_ledger(&g, 1, "one dropped");
	test_area_put(&g.a);
}

/* The signal handler's ring, and what it wrote. */
static struct ttrace_ring *signal_ring;
static volatile sig_atomic_t signal_writes;

#define SIGNAL_TAG     (1u << 24) /* the handler's tags: above the main loop's */
#define SIGNAL_WANT    2000	  /* signals to take before stopping */
#define SIGNAL_LIMIT   20000000	  /* main-loop writes at most, if signals are scarce */
#define SIGNAL_ENTRIES 4096	  /* no burst of signals laps it inside one write */

static void on_alarm(int sig)
{
	struct tagged e;

	(void)sig;
	make(&e, SIGNAL_TAG + (uint32_t)signal_writes);
	ttrace_ring_write(signal_ring, &e.ev);
	signal_writes++;
}

/* Checks n records as the events their pids name, and counts them in *received. */
static void check_all(const struct ttrace_record *out, size_t n, uint64_t *received,
		      const char *what)
{
	for (size_t k = 0; k < n; k++) {
		check(&out[k], out[k].index, out[k].pid - 1000, what);
	}
	*received += n;
}

/*
 * A timer signal (every 20 us) writes an event wherever it lands in the
 * main loop's writes, as an interrupt does on the ring's CPU: between a
 * reserve and its commit, and inside the reservation itself, where a
 * split read-modify-write of head would hand one index out twice (and of
 * dropped, lose a count). Every write must be counted exactly once and
 * every event read must be whole. With streaming, the main loop also
 * reads what it can after each write and publishes its tail, so drop
 * mode goes on reserving (its compare-and-exchange); the reader then
 * accounts for every entry, and in drop mode loses none. (A burst of
 * signals may still outrun it: what it missed is counted, lost or
 * dropped. The ring is large so that no burst laps a write the signal
 * interrupted, which the protocol rules out: ring_write.h.)
 */
static void signal_case(uint32_t mode, bool streaming)
{
	char what[64];
	struct itimerval every = {.it_interval = {.tv_usec = 20}, .it_value = {.tv_usec = 20}};
	struct itimerval off = {0};
	struct sigaction sa, old;
	struct ttrace_record out[READ_MAX];
	uint64_t main_writes = 0, received = 0;
	size_t n;
	struct rig g;

	snprintf(what, sizeof(what), "%s mode%s", mode == TTRACE_MODE_DROP ? "drop" : "overwrite",
		 streaming ? ", streaming" : "");
	rig_get(&g, mode, streaming, SIGNAL_ENTRIES);
	signal_ring = &g.r;
	signal_writes = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, &old) == 0, "%s: sigaction", what);
	CHECK(setitimer(ITIMER_REAL, &every, NULL) == 0, "%s: setitimer", what);
	while (signal_writes < SIGNAL_WANT && main_writes < SIGNAL_LIMIT) {
		struct tagged e;
		uint64_t index;

		make(&e, (uint32_t)(main_writes % SIGNAL_TAG));
		if (main_writes++ % 2) {
			ttrace_ring_write(&g.r, &e.ev);
		} else if (ttrace_ring_reserve(&g.r, 1, &index)) {
			ttrace_ring_commit(&g.r, index, &e.ev);
		}
		while (streaming && (n = ttrace_ring_read(&g.r, &g.c, out, READ_MAX))) {
			check_all(out, n, &received, what);
			ttrace_ring_publish_tail(&g.r, g.c.index);
		}
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	g.written = main_writes + (uint64_t)signal_writes;
	CHECK(signal_writes > 0, "%s: no signal landed", what);
	check_ledger(&g,
		     mode == TTRACE_MODE_OVERWRITE ? 0
		     : streaming		   ? ANY_DROPPED
						   : g.written - SIGNAL_ENTRIES,
		     what);

	struct ttrace_counts counts;
	struct ttrace_cursor c = g.c;

	if (!streaming) {
		ttrace_cursor_init_last(&c, &g.r, SIGNAL_ENTRIES);
	}
	while ((n = ttrace_ring_read(&g.r, &c, out, READ_MAX))) {
		check_all(out, n, &received, what);
	}
	ttrace_ring_counts(&g.r, &counts);
	/* one-slot events: entries are events */
	CHECK_EQ_UINT(received + c.lost, streaming ? counts.head : SIGNAL_ENTRIES, what);
	if (mode == TTRACE_MODE_DROP || !streaming) {
		CHECK_EQ_UINT(c.lost, 0, what);
	}
	test_area_put(&g.a);
}

TEST(ring_nested_writes_from_a_signal_handler)
{
	signal_case(TTRACE_MODE_OVERWRITE, false);
	signal_case(TTRACE_MODE_OVERWRITE, true);
	signal_case(TTRACE_MODE_DROP, false);
	signal_case(TTRACE_MODE_DROP, true);
}
