/*
 * Concurrency test of common/trace_ring.c and common/trace_aux.c, built on
 * its own with ThreadSanitizer (tests/host/trace.mk) and run by
 * `make test-host` after the unit tests.
 *
 * One writer thread per simulated CPU writes events of every size into a
 * small ring, now and then nesting one write inside another the way an
 * interrupt would (on the same thread: a ring has one writer). Each event
 * carries, in its payload, its own sequence number, word count and a
 * checksum of every other word, so a torn or lapped copy cannot pass;
 * words where a continuation would hold a head entry's seq are forged to
 * look like the next lap's. A streaming reader follows every ring
 * (publishing its tails in drop mode), another keeps reading the newest
 * entries, and a control thread clears rings and checks the counters while
 * they move. At the end, for
 * every CPU, what the writers attempted must equal stored + overwritten +
 * dropped + cleared, and what the streaming reader received plus what it
 * counted lost or cleared must equal head. The aux test does the same for
 * one aux writer against snapshot and lookup readers.
 *
 * Threads never call CHECK (the framework is single-threaded); they record
 * failures, which the test checks after joining them.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_aux.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "rand.h"
#include "test.h"
#include "trace/aux_write.h"
#include "trace/ring_write.h"

#define CPUS	   4
#define ENTRIES	   64
#define EVENTS	   20000 /* per writer */
#define READ_BATCH 32

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;
static char first_failure[256];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	if (!failures++) {
		va_start(ap, fmt);
		vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&fail_lock);
}

static void check_no_failures(void)
{
	CHECK(failures == 0, "%d failures, the first: %s", failures, first_failure);
	failures = 0;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ull + (h >> 29);
}

/* The checksum of everything an event carries but its last word. */
static uint64_t checksum(uint64_t ts, uint32_t pid, uint32_t tid, uint16_t kind, uint8_t ctx,
			 uint8_t cpu, const uint64_t *data, uint32_t nwords)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = mix(h, ts);
	h = mix(h, (uint64_t)pid << 32 | tid);
	h = mix(h, (uint64_t)kind << 16 | (uint64_t)ctx << 8 | cpu);
	for (uint32_t i = 0; i + 1 < nwords; i++) {
		h = mix(h, data[i]);
	}
	return h;
}

struct rig {
	struct ttrace_area a;
	struct ttrace_ring ring[CPUS];
	bool clears;
	int writers_left; /* [a] */
	/* each writer's own tally, read after it is joined */
	uint64_t attempted[CPUS], stored[CPUS], dropped[CPUS];
	/* the streaming reader's, read after it is joined */
	uint64_t received[CPUS];
	struct ttrace_cursor stream[CPUS];
};

struct writer_arg {
	struct rig *rig;
	uint32_t cpu;
};

static uint32_t random_nwords(uint64_t *rnd)
{
	return 2 + test_random(rnd) % (TTRACE_EVENT_WORDS_MAX - 1);
}

/*
 * Event evno of CPU cpu at index: nwords words, the first its number and
 * size, the last the checksum. The word each continuation holds where a
 * head entry has its seq is forged to the seq of the next lap's entry in
 * that slot: a reader must not take it for one.
 */
static struct ttrace_event make_event(uint32_t cpu, uint64_t evno, uint64_t index, uint32_t nwords,
				      uint64_t *rnd, uint64_t *data)
{
	struct ttrace_event ev = {.ts = (evno + 1) << 1,
				  .pid = 100 + cpu,
				  .tid = (uint32_t)evno,
				  .kind = TTRACE_KIND_test_tick,
				  .ctx = evno % 5,
				  .nwords = (uint8_t)nwords,
				  .data = data};

	data[0] = evno << 8 | nwords;
	for (uint32_t i = 1; i + 1 < nwords; i++) {
		data[i] = test_random(rnd);
	}
	for (uint32_t j = 1; j <= TTRACE_CONT_MAX; j++) {
		uint32_t w = TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS;

		if (w + 1 < nwords) {
			data[w] = (data[w] & ~0xffffffffull) | (uint32_t)(index + j + ENTRIES);
		}
	}
	data[nwords - 1] =
	    checksum(ev.ts, ev.pid, ev.tid, ev.kind, ev.ctx, (uint8_t)cpu, data, nwords);
	return ev;
}

/* Writes event evno (reserve, then fill): returns the slots it took, or 0 if dropped. */
static uint32_t write_one(struct ttrace_ring *r, uint32_t cpu, uint64_t evno, uint32_t nwords,
			  uint64_t *rnd)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	uint32_t nslots = TTRACE_EVENT_SLOTS(nwords);
	uint64_t index;

	if (!ttrace_ring_reserve(r, nslots, &index)) {
		return 0;
	}
	struct ttrace_event ev = make_event(cpu, evno, index, nwords, rnd, data);

	ttrace_ring_commit(r, index, &ev);
	return nslots;
}

static void *writer(void *p)
{
	struct writer_arg *w = p;
	struct rig *g = w->rig;
	struct ttrace_ring *r = &g->ring[w->cpu];
	uint64_t rnd = 0x9e3779b97f4a7c15ull * (w->cpu + 1);
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	uint64_t evno = 0;

	while (evno < EVENTS) {
		uint32_t nwords = random_nwords(&rnd);
		uint32_t nslots = TTRACE_EVENT_SLOTS(nwords);
		uint64_t index;
		uint32_t got;

		g->attempted[w->cpu] += nslots;
		if (test_random(&rnd) % 8) {
			got = write_one(r, w->cpu, evno++, nwords, &rnd);
			*(got ? &g->stored[w->cpu] : &g->dropped[w->cpu]) += nslots;
			continue;
		}
		/* an interrupt's write between the reserve and the commit of another */
		bool reserved = ttrace_ring_reserve(r, nslots, &index);
		uint64_t outer = evno++;
		uint32_t inner_words = random_nwords(&rnd);
		uint32_t inner_slots = TTRACE_EVENT_SLOTS(inner_words);

		got = write_one(r, w->cpu, evno++, inner_words, &rnd);
		g->attempted[w->cpu] += inner_slots;
		*(got ? &g->stored[w->cpu] : &g->dropped[w->cpu]) += inner_slots;
		*(reserved ? &g->stored[w->cpu] : &g->dropped[w->cpu]) += nslots;
		if (reserved) {
			struct ttrace_event ev =
			    make_event(w->cpu, outer, index, nwords, &rnd, data);

			ttrace_ring_commit(r, index, &ev);
		}
	}
	__atomic_fetch_sub(&g->writers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Checks a record a reader got from CPU cpu; *last_evno is the event
 * number it got before in the same pass (-1 if none), which must be lower.
 */
static void check_record(const struct ttrace_record *rec, uint32_t cpu, int64_t *last_evno,
			 const char *who)
{
	uint32_t nwords = rec->data[0] & 0xff;
	uint64_t evno = rec->data[0] >> 8;

	if (nwords < 2 || nwords > TTRACE_EVENT_WORDS_MAX ||
	    rec->ncont + 1u != TTRACE_EVENT_SLOTS(nwords)) {
		fail("%s: cpu %u index %llu: %u words in %u continuations", who, cpu,
		     (unsigned long long)rec->index, nwords, rec->ncont);
		return;
	}
	for (uint32_t i = nwords; i < TTRACE_EVENT_WORDS_MAX; i++) {
		if (rec->data[i]) {
			fail("%s: cpu %u index %llu: word %u is not zero", who, cpu,
			     (unsigned long long)rec->index, i);
			return;
		}
	}
	if (rec->data[nwords - 1] != checksum(rec->ts, rec->pid, rec->tid, rec->kind, rec->ctx,
					      rec->cpu, rec->data, nwords) ||
	    rec->cpu != cpu || rec->pid != 100 + cpu || rec->ts != (evno + 1) << 1) {
		fail("%s: cpu %u index %llu: torn or misplaced event %llu", who, cpu,
		     (unsigned long long)rec->index, (unsigned long long)evno);
		return;
	}
	if ((int64_t)evno <= *last_evno) {
		fail("%s: cpu %u: event %llu after event %lld", who, cpu, (unsigned long long)evno,
		     (long long)*last_evno);
	}
	*last_evno = (int64_t)evno;
}

static bool writers_done(struct rig *g)
{
	/* acquire: pairs with the writers' release decrement; their writes are all done */
	return __atomic_load_n(&g->writers_left, __ATOMIC_ACQUIRE) == 0;
}

/* Follows every ring until the writers are done and it has read up to every head. */
static void *streaming_reader(void *p)
{
	struct rig *g = p;
	struct ttrace_record out[READ_BATCH];
	int64_t last[CPUS];
	bool done = false;

	for (uint32_t c = 0; c < CPUS; c++) {
		ttrace_cursor_init(&g->stream[c], 0);
		last[c] = -1;
	}
	while (!done) {
		bool finished = writers_done(g);

		done = finished;
		for (uint32_t c = 0; c < CPUS; c++) {
			size_t n = ttrace_ring_read(&g->ring[c], &g->stream[c], out, READ_BATCH);

			for (size_t i = 0; i < n; i++) {
				check_record(&out[i], c, &last[c], "streaming reader");
				g->received[c] += 1 + out[i].ncont;
			}
			if (ttrace_ring_publish_tail(&g->ring[c], g->stream[c].index)) {
				fail("no reader page");
			}
			/* relaxed: the writers are done (acquire above); head no longer moves */
			if (finished &&
			    g->stream[c].index !=
				__atomic_load_n(&g->ring[c].state->head, __ATOMIC_RELAXED)) {
				done = false;
			}
		}
	}
	return NULL;
}

/* Reads the newest entries of one ring after another until the writers are done. */
static void *newest_reader(void *p)
{
	struct rig *g = p;
	struct ttrace_record out[READ_BATCH];
	uint64_t rnd = 12345;

	while (!writers_done(g)) {
		uint32_t c = test_random(&rnd) % CPUS;
		struct ttrace_cursor cur;
		int64_t last = -1;
		size_t n;

		ttrace_cursor_init_last(&cur, &g->ring[c], test_random(&rnd) % (2 * ENTRIES));
		n = ttrace_ring_read(&g->ring[c], &cur, out, READ_BATCH);
		for (size_t i = 0; i < n; i++) {
			check_record(&out[i], c, &last, "newest reader");
		}
	}
	return NULL;
}

/* Checks that a snapshot of the counters is sane: each part at most what was emitted. */
static void check_counts(const struct ttrace_ring *r, struct ttrace_counts *c)
{
	if (ttrace_ring_counts(r, c)) {
		fail("cpu %u: counts busy", r->cpu);
	}
	if (c->stored > ENTRIES || c->overwritten > c->emitted || c->cleared > c->emitted ||
	    c->dropped > c->emitted ||
	    c->stored + c->overwritten + c->dropped + c->cleared != c->emitted) {
		fail("cpu %u: emitted %llu, stored %llu, overwritten %llu, dropped %llu, cleared "
		     "%llu",
		     r->cpu, (unsigned long long)c->emitted, (unsigned long long)c->stored,
		     (unsigned long long)c->overwritten, (unsigned long long)c->dropped,
		     (unsigned long long)c->cleared);
	}
}

/* Clears rings (if the rig says so) and checks the counters until the writers are done. */
static void *control(void *p)
{
	struct rig *g = p;
	uint64_t rnd = 777;

	while (!writers_done(g)) {
		uint32_t c = test_random(&rnd) % CPUS;
		struct ttrace_counts counts;

		if (g->clears && test_random(&rnd) % 16 == 0) {
			ttrace_ring_clear(&g->ring[c]);
		}
		check_counts(&g->ring[c], &counts);
	}
	return NULL;
}

/* The rig's area: CPUS rings of ENTRIES, the boot names' durable part, a reader page. */
static void rig_area(struct ttrace_area *a)
{
	const struct ttrace_geometry g = {.num_cpus = CPUS,
					  .ring_entries = ENTRIES,
					  .aux_durable_size = ttrace_aux_names_size(),
					  .aux_ring_size = TTRACE_AUX_RING_MIN};

	test_area_get(a, &g, true);
}

/* Runs writers and readers on rings in mode; returns totals over the CPUs. */
static void run_rings(uint32_t mode, bool clears, struct ttrace_counts *total)
{
	static struct rig g;
	struct writer_arg args[CPUS];
	pthread_t writers[CPUS], stream, newest, ctl;

	memset(&g, 0, sizeof(g));
	memset(total, 0, sizeof(*total));
	rig_area(&g.a);
	g.a.hdr->mode = mode;
	g.clears = clears;
	g.writers_left = CPUS;
	for (uint32_t c = 0; c < CPUS; c++) {
		ttrace_ring_get(&g.ring[c], &g.a, c);
	}
	pthread_create(&stream, NULL, streaming_reader, &g);
	pthread_create(&newest, NULL, newest_reader, &g);
	pthread_create(&ctl, NULL, control, &g);
	for (uint32_t c = 0; c < CPUS; c++) {
		args[c] = (struct writer_arg){.rig = &g, .cpu = c};
		pthread_create(&writers[c], NULL, writer, &args[c]);
	}
	for (uint32_t c = 0; c < CPUS; c++) {
		pthread_join(writers[c], NULL);
	}
	pthread_join(stream, NULL);
	pthread_join(newest, NULL);
	pthread_join(ctl, NULL);

	for (uint32_t c = 0; c < CPUS; c++) {
		struct ttrace_record out[READ_BATCH];
		const struct ttrace_cursor *s = &g.stream[c];
		struct ttrace_counts counts;
		struct ttrace_cursor fresh;
		uint64_t fresh_received = 0;
		int64_t last = -1;
		size_t n;
		char what[48];

		snprintf(what, sizeof(what), "mode %u clears %d cpu %u", mode, clears, c);
		check_counts(&g.ring[c], &counts);
		CHECK_EQ_UINT(counts.emitted, g.attempted[c], what);
		CHECK_EQ_UINT(counts.head, g.stored[c], what);
		CHECK_EQ_UINT(counts.dropped, g.dropped[c], what);
		CHECK_EQ_UINT(g.received[c] + s->lost + s->cleared, counts.head, what);
		if (mode == TTRACE_MODE_DROP) {
			CHECK_EQ_UINT(s->lost, 0, what);
		}
		/* at rest, a fresh reader gets what is stored but a few orphan continuations */
		ttrace_cursor_init(&fresh, 0);
		while ((n = ttrace_ring_read(&g.ring[c], &fresh, out, READ_BATCH))) {
			for (size_t i = 0; i < n; i++) {
				check_record(&out[i], c, &last, "fresh reader");
				fresh_received += 1 + out[i].ncont;
			}
		}
		CHECK_EQ_UINT(fresh_received + fresh.lost + fresh.cleared, counts.head, what);
		CHECK(fresh_received <= counts.stored &&
			  counts.stored - fresh_received <= TTRACE_CONT_MAX,
		      "%s: %llu of %llu stored entries read", what,
		      (unsigned long long)fresh_received, (unsigned long long)counts.stored);
		total->emitted += counts.emitted;
		total->stored += g.received[c];
		total->overwritten += counts.overwritten;
		total->dropped += counts.dropped;
		total->cleared += counts.cleared;
	}
	check_no_failures();
	test_area_put(&g.a);
}

TEST(trace_concurrency_overwrite_mode)
{
	struct ttrace_counts t;

	run_rings(TTRACE_MODE_OVERWRITE, false, &t);
	CHECK(t.overwritten > 0, "the rings wrapped");
	CHECK(t.stored > 0, "the streaming reader received events");
	CHECK_EQ_UINT(t.dropped, 0, "overwrite mode drops nothing");
}

TEST(trace_concurrency_drop_mode)
{
	struct ttrace_counts t;

	run_rings(TTRACE_MODE_DROP, false, &t);
	CHECK(t.dropped > 0, "the writers outran the reader");
	CHECK(t.stored > 0, "the streaming reader received events");
}

TEST(trace_concurrency_clears_in_both_modes)
{
	struct ttrace_counts t;

	run_rings(TTRACE_MODE_OVERWRITE, true, &t);
	CHECK(t.cleared > 0, "overwrite mode: rings were cleared");
	run_rings(TTRACE_MODE_DROP, true, &t);
	CHECK(t.cleared > 0, "drop mode: rings were cleared");
}

#define AUX_RECORDS 20000
#define AUX_REFS    1024 /* references the writer publishes, the newest kept */

struct aux_rig {
	struct ttrace_area a;
	uint64_t name_ref; /* a durable record: never evicted */
	uint64_t refs[AUX_REFS];
	uint32_t published; /* [a] records written so far */
};

static uint32_t aux_len(uint32_t k)
{
	return k * 37 % 300;
}

static void aux_string(uint32_t k, char *s)
{
	for (uint32_t i = 0; i < aux_len(k); i++) {
		s[i] = (char)('!' + (k * 7 + i) % 90);
	}
	s[aux_len(k)] = '\0';
}

static void check_aux(const struct ttrace_aux_record *rec, const char *str, uint32_t len,
		      const char *who)
{
	char want[TTRACE_AUX_LEN_MAX + 1];
	uint32_t k = (uint32_t)rec->id;

	aux_string(k, want);
	if (rec->tag != TTRACE_AUX_TEXT || rec->len != aux_len(k) || len != rec->len ||
	    memcmp(str, want, len)) {
		fail("%s: record %u at %llu is not what was written", who, k,
		     (unsigned long long)rec->pos);
	}
}

static void *aux_writer(void *p)
{
	struct aux_rig *g = p;
	char s[TTRACE_AUX_LEN_MAX + 1];

	for (uint32_t k = 0; k < AUX_RECORDS; k++) {
		struct ttrace_aux_item it = {
		    .id = k, .ts = k, .str = s, .len = aux_len(k), .tag = TTRACE_AUX_TEXT};
		uint64_t ref;

		aux_string(k, s);
		if (ttrace_aux_write(&g->a, &it, &ref)) {
			fail("aux write %u", k);
		}
		/* relaxed: published by the release store of published below */
		__atomic_store_n(&g->refs[k % AUX_REFS], ref, __ATOMIC_RELAXED);
		/* release: pairs with the readers' acquire load of published */
		__atomic_store_n(&g->published, k + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *aux_reader(void *p)
{
	struct aux_rig *g = p;
	static __thread uint64_t buf[TTRACE_AUX_RING_MIN / 8];
	char s[TTRACE_AUX_LEN_MAX + 1];
	uint64_t rnd = (uint64_t)(uintptr_t)&s | 1;
	uint32_t n;

	/* acquire: pairs with the writer's release store of published */
	while ((n = __atomic_load_n(&g->published, __ATOMIC_ACQUIRE)) < AUX_RECORDS) {
		struct ttrace_aux_record rec;
		struct ttrace_aux_view v;
		const char *str;
		int64_t last = -1;
		int got;

		if (!n) {
			continue;
		}
		uint32_t k =
		    n - 1 - (uint32_t)(test_random(&rnd) % (n < AUX_REFS / 2 ? n : AUX_REFS / 2));
		/* relaxed: the acquire load of published covers it */
		uint64_t ref = __atomic_load_n(&g->refs[k % AUX_REFS], __ATOMIC_RELAXED);

		got = ttrace_aux_lookup(&g->a, ref, &rec, s, sizeof(s));
		if (got >= 0) {
			check_aux(&rec, s, (uint32_t)got, "lookup");
			if (rec.id != k) {
				fail("lookup of record %u found record %llu", k,
				     (unsigned long long)rec.id);
			}
		} else if (got != -ENOENT || s[0]) {
			fail("lookup of record %u: %d", k, got);
		}
		if (ttrace_aux_lookup(&g->a, g->name_ref, &rec, s, sizeof(s)) != 4 ||
		    strcmp(s, "exit")) {
			fail("durable name lost");
		}
		if (ttrace_aux_snapshot(&g->a, buf, sizeof(buf), &v)) {
			continue; /* overtaken: try again */
		}
		while ((got = ttrace_aux_next(&v, &rec, &str)) == 1) {
			check_aux(&rec, str, rec.len, "snapshot");
			if ((int64_t)rec.id != last + 1 && last >= 0) {
				fail("snapshot: record %llu after %lld", (unsigned long long)rec.id,
				     (long long)last);
			}
			last = (int64_t)rec.id;
		}
		if (got) {
			fail("snapshot walk: %d", got);
		}
	}
	return NULL;
}

TEST(trace_concurrency_aux_readers_never_see_other_bytes)
{
	static struct aux_rig g;
	struct ttrace_aux_view v;
	struct ttrace_aux_record rec;
	const char *str;
	pthread_t w, r[2];

	memset(&g, 0, sizeof(g));
	rig_area(&g.a);
	CHECK_EQ_INT(ttrace_aux_write_names(&g.a, 0), 0, "boot names");
	ttrace_aux_durable(&g.a, &v);
	g.name_ref = UINT64_MAX;
	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		if (rec.tag == TTRACE_AUX_SYSCALL && rec.id == 0) {
			g.name_ref = rec.pos;
		}
	}
	pthread_create(&r[0], NULL, aux_reader, &g);
	pthread_create(&r[1], NULL, aux_reader, &g);
	pthread_create(&w, NULL, aux_writer, &g);
	pthread_join(w, NULL);
	pthread_join(r[0], NULL);
	pthread_join(r[1], NULL);
	check_no_failures();
	CHECK(g.a.hdr->aux_evicted > AUX_RECORDS / 2, "the aux ring wrapped many times");
	test_area_put(&g.a);
}
