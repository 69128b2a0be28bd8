/*
 * ring_stress: see ring_stress.h. Checks, each exact:
 *  - every event a reader returns (streaming, flight recorder, and a fresh
 *    reader at the end) passes its checksum, holds the words its number
 *    says, zeros after them, and comes after the one before it on its CPU;
 *    its ts is the one its number gives, or for the straight path's the
 *    TSC's, later than the straight event's before it on its CPU;
 *  - the snapshots of the counters add up (emitted = stored +
 *    overwritten + dropped + cleared), stored never exceeds the ring, and
 *    no counter goes back between two of them; both the control thread,
 *    which clears, and another thread take them (a clear's fence must
 *    order its odd clear_seq before its load of head for the other's
 *    snapshots too);
 *  - at the end, for every CPU: emitted and dropped are what the writer
 *    attempted and had refused, head what it reserved; the streaming
 *    reader's received + lost + cleared = head, and without mode changes
 *    or clears in drop mode it lost nothing; a fresh reader from index 0
 *    counts cleared exactly as the ledger and lost exactly as overwritten
 *    plus the stored entries it could not return (orphan continuations,
 *    at most TTRACE_CONT_MAX).
 * Threads never stop at a failure: they record it (the first message is
 * kept) and the run reports the count.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np */

#include "ring_stress.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "abi/trace.h"
#include "area.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "rand.h"
#include "trace/recorder.h"
#include "trace/ring_write.h"
#include "writers.h"

#define CPUS	     4
#define ENTRIES	     TTRACE_RING_ENTRIES_MIN /* tiny: every ring wraps all the time */
#define READ_BATCH   8
#define NEST_DEPTH   2	       /* an interrupt inside an interrupt inside a write */
#define NEST_ONE_IN  6	       /* one write in this many has another nested in it */
#define CLEAR_ONE_IN 64	       /* control rounds per clear */
#define MODE_ONE_IN  96	       /* control rounds per mode change */
#define STRAIGHT     (1u << 7) /* in an event's first word: the straight path wrote it */

struct rig {
	const struct ring_stress_config *cfg;
	struct ttrace_area a;
	struct ttrace_ring ring[CPUS];
	bool stop;	      /* [a] the writers stop */
	int writers_left;     /* [a] */
	struct cpu cpu[CPUS]; /* each writer's, its thread's %gs for the straight path */
	/* each writer's own tally, read after it is joined */
	uint64_t attempted[CPUS], reserved[CPUS], dropped[CPUS], events[CPUS], nested[CPUS],
	    straight[CPUS];
	/* the streaming reader's, read after it is joined */
	uint64_t received[CPUS];
	struct ttrace_cursor stream[CPUS];
	uint64_t recorded, clears, mode_changes;
	pthread_mutex_t fail_lock;
	int failures;
	char *first;
	unsigned first_size;
};

static void fail(struct rig *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct rig *g, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g->fail_lock);
	if (!g->failures++) {
		va_start(ap, fmt);
		vsnprintf(g->first, g->first_size, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&g->fail_lock);
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ull + (h >> 29);
}

/*
 * The checksum of everything an event carries but its last word (and the
 * ts of one the straight path writes, which is the TSC's).
 */
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

/* 2 words (number and size, checksum): no continuation; up to every word: TTRACE_CONT_MAX. */
static uint32_t random_nwords(uint64_t *rnd)
{
	return 2 + test_random(rnd) % (TTRACE_EVENT_WORDS_MAX - 1);
}

/*
 * Event evno of CPU cpu at index: nwords words, the first its number,
 * whether the straight path writes it (flags: STRAIGHT or 0) and its size,
 * the last the checksum, zeros after. The word each continuation holds
 * where a head entry has its seq is forged to the seq of the next lap's
 * entry in that slot: a reader must not take it for one.
 */
static struct ttrace_event make_event(uint32_t cpu, uint64_t evno, uint64_t index, uint32_t nwords,
				      uint32_t flags, uint64_t *rnd, uint64_t *data)
{
	struct ttrace_event ev = {.ts = (evno + 1) << 1,
				  .pid = 100 + cpu,
				  .tid = (uint32_t)evno,
				  .kind = TTRACE_KIND_test_tick,
				  .ctx = evno % 5,
				  .nwords = (uint8_t)nwords,
				  .data = data};

	data[0] = evno << 8 | flags | nwords;
	for (uint32_t i = 1; i + 1 < nwords; i++) {
		data[i] = test_random(rnd);
	}
	for (uint32_t i = nwords; i < TTRACE_EVENT_WORDS_MAX; i++) {
		data[i] = 0;
	}
	for (uint32_t j = 1; j <= TTRACE_CONT_MAX; j++) {
		uint32_t w = TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS;

		if (w + 1 < nwords) {
			data[w] = (data[w] & ~0xffffffffull) | (uint32_t)(index + j + ENTRIES);
		}
	}
	data[nwords - 1] = checksum(flags ? 0 : ev.ts, ev.pid, ev.tid, ev.kind, ev.ctx,
				    (uint8_t)cpu, data, nwords);
	return ev;
}

struct writer {
	struct rig *g;
	uint32_t cpu;
	uint64_t rnd;
	uint64_t evno;
};

/*
 * Event evno of nwords words (one slot) by the straight path, on this
 * thread's CPU: its pid, tid and context set there first, as a switch
 * sets them.
 */
static void write_straight(struct writer *w, uint64_t evno, uint32_t nwords)
{
	uint64_t d[TTRACE_EVENT_WORDS_MAX];
	struct ttrace_event ev = make_event(w->cpu, evno, 0, nwords, STRAIGHT, &w->rnd, d);

	host_cpu_ids(ev.pid, ev.tid);
	percpu_set_trace_ctx(ev.ctx);
	ttrace_write_here(ev.kind, d[0], d[1], d[2], d[3], d[4]);
}

/*
 * Writes one event as the kernel does: an event of one slot in overwrite
 * mode, half the time, by the straight path, as a tracepoint while no
 * extra is on; any other by the slow path, which reserves it, then, one
 * time in NEST_ONE_IN while depth allows, writes another before
 * committing it, as an interrupt between reserve and commit does.
 */
static void write_event(struct writer *w, uint32_t depth)
{
	struct rig *g = w->g;
	struct ttrace_ring *r = &g->ring[w->cpu];
	uint64_t data[TTRACE_EVENT_WORDS_MAX];
	uint32_t nwords = random_nwords(&w->rnd);
	uint32_t nslots = TTRACE_EVENT_SLOTS(nwords);
	uint64_t evno = w->evno++, index;

	g->attempted[w->cpu] += nslots;
	g->events[w->cpu]++;
	g->nested[w->cpu] += depth > 0;
	/*
	 * relaxed, as the mode is switched: a write racing the switch may
	 * use either mode (as a site moved to the slow path by the switch)
	 */
	if (nslots == 1 && __atomic_load_n(&g->a.hdr->mode, __ATOMIC_RELAXED) != TTRACE_MODE_DROP &&
	    test_random(&w->rnd) % 2) {
		write_straight(w, evno, nwords);
		g->reserved[w->cpu]++;
		g->straight[w->cpu]++;
		return;
	}
	bool reserved = ttrace_ring_reserve(r, nslots, &index);

	*(reserved ? &g->reserved[w->cpu] : &g->dropped[w->cpu]) += nslots;
	if (depth < NEST_DEPTH && test_random(&w->rnd) % NEST_ONE_IN == 0) {
		write_event(w, depth + 1);
	}
	if (reserved) {
		struct ttrace_event ev = make_event(w->cpu, evno, index, nwords, 0, &w->rnd, data);

		ttrace_ring_commit(r, index, &ev);
	}
}

static bool stopping(struct rig *g)
{
	/* relaxed: a flag; the writers' results are handed over by writers_left */
	return __atomic_load_n(&g->stop, __ATOMIC_RELAXED);
}

/* The k-th CPU of set, counting from 0 (set holds more than k). */
static int nth_cpu(const cpu_set_t *set, int k)
{
	int cpu = 0;

	while (!CPU_ISSET(cpu, set) || k-- > 0) {
		cpu++;
	}
	return cpu;
}

/*
 * Writes until told to stop, as CPU w->cpu, pinned to one of the host's
 * CPUs, so that its TSC reads rise (and the straight path's timestamps
 * with them) even where the host's CPUs' clocks differ. Left unpinned if
 * the host refuses, it relies on their being in step.
 */
static void *writer_thread(void *p)
{
	struct writer *w = p;
	cpu_set_t on;

	CPU_ZERO(&on);
	if (!sched_getaffinity(0, sizeof(on), &on)) {
		int host = nth_cpu(&on, (int)(w->cpu % (uint32_t)CPU_COUNT(&on)));

		CPU_ZERO(&on);
		CPU_SET(host, &on);
		pthread_setaffinity_np(pthread_self(), sizeof(on), &on);
	}
	host_cpu_enter(&w->g->cpu[w->cpu], &w->g->ring[w->cpu]);
	while (!stopping(w->g)) {
		write_event(w, 0);
	}
	/* release: pairs with the acquire load in writers_done() */
	__atomic_fetch_sub(&w->g->writers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool writers_done(struct rig *g)
{
	/* acquire: pairs with the writers' release decrement; their writes are all done */
	return __atomic_load_n(&g->writers_left, __ATOMIC_ACQUIRE) == 0;
}

/* What a reader got before from one CPU in one pass: the next must come after it. */
struct order {
	int64_t evno; /* the event's number, -1 for none yet */
	uint64_t ts;  /* the last straight event's ts, 0 for none yet */
};

#define ORDER_START ((struct order){.evno = -1, .ts = 0})

/* Checks a record a reader got from CPU cpu after those *last says. */
static void check_record(struct rig *g, const struct ttrace_record *rec, uint32_t cpu,
			 struct order *last, const char *who)
{
	uint32_t nwords = rec->data[0] & (STRAIGHT - 1);
	uint64_t evno = rec->data[0] >> 8;
	bool straight = rec->data[0] & STRAIGHT;

	if (nwords < 2 || nwords > TTRACE_EVENT_WORDS_MAX ||
	    rec->ncont + 1u != TTRACE_EVENT_SLOTS(nwords)) {
		fail(g, "%s: cpu %u index %llu: %u words in %u continuations", who, cpu,
		     (unsigned long long)rec->index, nwords, rec->ncont);
		return;
	}
	for (uint32_t i = nwords; i < TTRACE_EVENT_WORDS_MAX; i++) {
		if (rec->data[i]) {
			fail(g, "%s: cpu %u index %llu: word %u is not zero", who, cpu,
			     (unsigned long long)rec->index, i);
			return;
		}
	}
	if (rec->data[nwords - 1] != checksum(straight ? 0 : rec->ts, rec->pid, rec->tid, rec->kind,
					      rec->ctx, rec->cpu, rec->data, nwords) ||
	    rec->cpu != cpu || rec->pid != 100 + cpu ||
	    (straight ? rec->ts <= last->ts || rec->ts % 2 : rec->ts != (evno + 1) << 1)) {
		fail(g, "%s: cpu %u index %llu: torn or misplaced event %llu", who, cpu,
		     (unsigned long long)rec->index, (unsigned long long)evno);
		return;
	}
	if ((int64_t)evno <= last->evno) {
		fail(g, "%s: cpu %u: event %llu after event %lld", who, cpu,
		     (unsigned long long)evno, (long long)last->evno);
	}
	last->evno = (int64_t)evno;
	last->ts = straight ? rec->ts : last->ts;
}

/* Follows every ring until the writers are done and it has read up to every head. */
static void *streaming_reader(void *p)
{
	struct rig *g = p;
	struct ttrace_record out[READ_BATCH];
	struct order last[CPUS];
	bool done = false;

	for (uint32_t c = 0; c < CPUS; c++) {
		ttrace_cursor_init(&g->stream[c], 0);
		last[c] = ORDER_START;
	}
	while (!done) {
		bool finished = writers_done(g);

		done = finished;
		for (uint32_t c = 0; c < CPUS; c++) {
			size_t n = ttrace_ring_read(&g->ring[c], &g->stream[c], out, READ_BATCH);

			for (size_t i = 0; i < n; i++) {
				check_record(g, &out[i], c, &last[c], "streaming reader");
				g->received[c] += 1 + out[i].ncont;
			}
			if (ttrace_ring_publish_tail(&g->ring[c], g->stream[c].index)) {
				fail(g, "no reader page");
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

/* The flight recorder's read (kernel/trace/recorder.c) of one ring after another, live. */
static void *recorder_reader(void *p)
{
	struct rig *g = p;
	struct ttrace_record out[ENTRIES];
	uint64_t rnd = g->cfg->seed ^ 0x5bd1e995;

	while (!writers_done(g)) {
		uint32_t c = test_random(&rnd) % CPUS;
		uint64_t skipped;
		struct order last = ORDER_START;
		size_t n = recorder_read(&g->ring[c], 1 + test_random(&rnd) % (2 * ENTRIES), out,
					 ENTRIES, &skipped);

		for (size_t i = 0; i < n; i++) {
			check_record(g, &out[i], c, &last, "flight recorder");
		}
		g->recorded += n;
	}
	return NULL;
}

/*
 * Checks one snapshot of CPU cpu's counters against themselves and the one
 * before. A thread other than the clearing one may find a clear in
 * progress for as long as the host keeps the clearing thread off its CPU:
 * with clearing_elsewhere, that snapshot is only skipped.
 */
static void check_counts(struct rig *g, uint32_t cpu, struct ttrace_counts *prev,
			 bool clearing_elsewhere)
{
	struct ttrace_counts c;

	if (ttrace_ring_counts(&g->ring[cpu], &c)) {
		if (!clearing_elsewhere) {
			fail(g, "cpu %u: counts busy", cpu);
		}
		return;
	}
	if (c.stored > ENTRIES || c.stored + c.overwritten + c.dropped + c.cleared != c.emitted) {
		fail(g,
		     "cpu %u: emitted %llu, stored %llu, overwritten %llu, dropped %llu, "
		     "cleared %llu",
		     cpu, (unsigned long long)c.emitted, (unsigned long long)c.stored,
		     (unsigned long long)c.overwritten, (unsigned long long)c.dropped,
		     (unsigned long long)c.cleared);
	}
	if (c.head < prev->head || c.emitted < prev->emitted || c.overwritten < prev->overwritten ||
	    c.dropped < prev->dropped || c.cleared < prev->cleared) {
		fail(g,
		     "cpu %u: a counter went back: overwritten %llu after %llu, cleared %llu after "
		     "%llu",
		     cpu, (unsigned long long)c.overwritten, (unsigned long long)prev->overwritten,
		     (unsigned long long)c.cleared, (unsigned long long)prev->cleared);
	}
	*prev = c;
}

/* Clears rings and switches modes, as the configuration says, and checks the counters. */
static void *control(void *p)
{
	struct rig *g = p;
	struct ttrace_counts prev[CPUS];
	uint64_t rnd = g->cfg->seed ^ 0x2545f4914f6cdd1d;

	memset(prev, 0, sizeof(prev));
	while (!writers_done(g)) {
		uint32_t c = test_random(&rnd) % CPUS;

		if (g->cfg->clears && test_random(&rnd) % CLEAR_ONE_IN == 0) {
			ttrace_ring_clear(&g->ring[c]);
			g->clears++;
		}
		if (g->cfg->mode_changes && test_random(&rnd) % MODE_ONE_IN == 0) {
			/* relaxed: as the kernel switches it; a write racing it may use either mode
			 */
			uint32_t mode = __atomic_load_n(&g->a.hdr->mode, __ATOMIC_RELAXED);

			__atomic_store_n(&g->a.hdr->mode, mode ^ 1, __ATOMIC_RELAXED);
			g->mode_changes++;
		}
		check_counts(g, c, &prev[c], false);
	}
	for (uint32_t c = 0; c < CPUS; c++) {
		check_counts(g, c, &prev[c], false);
	}
	return NULL;
}

/* Snapshots every CPU's counters from a thread of its own, beside the control thread's. */
static void *snapshots(void *p)
{
	struct rig *g = p;
	struct ttrace_counts prev[CPUS];

	memset(prev, 0, sizeof(prev));
	while (!writers_done(g)) {
		for (uint32_t c = 0; c < CPUS; c++) {
			check_counts(g, c, &prev[c], true);
		}
	}
	return NULL;
}

/* At rest: CPU c's ledger against its writer's tally, and two readers' counts against it. */
static void check_at_rest(struct rig *g, uint32_t c, struct ring_stress_totals *t)
{
	struct ttrace_record out[READ_BATCH];
	const struct ttrace_cursor *s = &g->stream[c];
	struct ttrace_counts k;
	struct ttrace_cursor fresh;
	uint64_t got = 0;
	struct order last = ORDER_START;
	size_t n;

	if (ttrace_ring_counts(&g->ring[c], &k)) {
		fail(g, "cpu %u: counts busy at rest", c);
	}
	if (k.emitted != g->attempted[c] || k.head != g->reserved[c] ||
	    k.dropped != g->dropped[c]) {
		fail(g,
		     "cpu %u: emitted %llu, head %llu, dropped %llu; the writer attempted %llu, "
		     "reserved %llu, had %llu refused",
		     c, (unsigned long long)k.emitted, (unsigned long long)k.head,
		     (unsigned long long)k.dropped, (unsigned long long)g->attempted[c],
		     (unsigned long long)g->reserved[c], (unsigned long long)g->dropped[c]);
	}
	if (g->received[c] + s->lost + s->cleared != k.head) {
		fail(g,
		     "cpu %u: the streaming reader received %llu, lost %llu, cleared %llu of %llu",
		     c, (unsigned long long)g->received[c], (unsigned long long)s->lost,
		     (unsigned long long)s->cleared, (unsigned long long)k.head);
	}
	if (g->cfg->mode == TTRACE_MODE_DROP && !g->cfg->mode_changes && s->lost) {
		fail(g, "cpu %u: the streaming reader lost %llu in drop mode", c,
		     (unsigned long long)s->lost);
	}
	ttrace_cursor_init(&fresh, 0);
	while ((n = ttrace_ring_read(&g->ring[c], &fresh, out, READ_BATCH))) {
		for (size_t i = 0; i < n; i++) {
			check_record(g, &out[i], c, &last, "fresh reader");
			got += 1 + out[i].ncont;
		}
	}
	if (fresh.index != k.head || got > k.stored || k.stored - got > TTRACE_CONT_MAX ||
	    fresh.cleared != k.cleared || fresh.lost != k.overwritten + (k.stored - got)) {
		fail(g,
		     "cpu %u: a fresh reader got %llu of %llu stored, lost %llu, cleared %llu; the "
		     "ledger: overwritten %llu, cleared %llu",
		     c, (unsigned long long)got, (unsigned long long)k.stored,
		     (unsigned long long)fresh.lost, (unsigned long long)fresh.cleared,
		     (unsigned long long)k.overwritten, (unsigned long long)k.cleared);
	}
	t->cpus_idle += !g->events[c];
	t->events += g->events[c];
	t->nested += g->nested[c];
	t->straight += g->straight[c];
	t->received += g->received[c];
	t->overwritten += k.overwritten;
	t->dropped += k.dropped;
	t->cleared += k.cleared;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts)) {
	}
}

int ring_stress_run(const struct ring_stress_config *cfg, struct ring_stress_totals *t, char *first,
		    unsigned first_size)
{
	static struct rig g;
	const struct ttrace_geometry geo = {
	    .num_cpus = CPUS, .ring_entries = ENTRIES, .aux_ring_size = TTRACE_AUX_RING_MIN};
	struct writer w[CPUS];
	pthread_t writers[CPUS], stream, recorder, ctl, snap;

	memset(&g, 0, sizeof(g));
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&g.fail_lock, NULL);
	g.cfg = cfg;
	g.first = first;
	g.first_size = first_size;
	first[0] = '\0';
	test_area_get(&g.a, &geo, true);
	g.a.hdr->mode = cfg->mode;
	g.writers_left = CPUS;
	for (uint32_t c = 0; c < CPUS; c++) {
		ttrace_ring_get(&g.ring[c], &g.a, c);
	}
	pthread_create(&stream, NULL, streaming_reader, &g);
	pthread_create(&recorder, NULL, recorder_reader, &g);
	pthread_create(&ctl, NULL, control, &g);
	pthread_create(&snap, NULL, snapshots, &g);
	for (uint32_t c = 0; c < CPUS; c++) {
		w[c] = (struct writer){.g = &g, .cpu = c, .rnd = cfg->seed * (c + 1) | 1};
		pthread_create(&writers[c], NULL, writer_thread, &w[c]);
	}
	sleep_ms(cfg->ms);
	/* relaxed: see stopping() */
	__atomic_store_n(&g.stop, true, __ATOMIC_RELAXED);
	for (uint32_t c = 0; c < CPUS; c++) {
		pthread_join(writers[c], NULL);
	}
	pthread_join(stream, NULL);
	pthread_join(recorder, NULL);
	pthread_join(ctl, NULL);
	pthread_join(snap, NULL);
	for (uint32_t c = 0; c < CPUS; c++) {
		check_at_rest(&g, c, t);
	}
	t->recorded = g.recorded;
	t->clears = g.clears;
	t->mode_changes = g.mode_changes;
	test_area_put(&g.a);
	pthread_mutex_destroy(&g.fail_lock);
	return g.failures;
}
