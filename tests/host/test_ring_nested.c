/*
 * Tests the kernel's two writers (tests/host/writers.h) with writes nested
 * inside each other, as an interrupt's write nests in the one it
 * interrupted on the ring's CPU: the tracepoints' straight path
 * (ttrace_write_here()), and the slow path's reserve and commit, between
 * which the kernel takes interrupts. The interrupted event keeps the
 * index it reserved, the nested ones take the next, a reader waits at the
 * interrupted one until it is committed and then returns every event
 * exactly, in index order, and the ledger adds up exactly. Each case runs
 * in both modes, on a fresh ring and on one that has lapped (its slots
 * still hold older entries, which a reader must not take for the ones
 * being written); in drop mode the kernel's tracepoints take the slow
 * path, so the nested writes do too. Then a timer signal writes into the
 * ring whenever it lands, inside the reservations too, which must be one
 * step an interrupt cannot split; and the straight path is single-stepped
 * with two events written after each of its instructions in turn, as
 * selftest=tracenest does in the kernel.
 */
#define _GNU_SOURCE /* sched_getcpu() */

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "abi/trace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "area.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "test.h"
#include "trace/ring_write.h"
#include "writers.h"

#define ENTRIES	 16
#define READ_MAX (ENTRIES + 4)

/*
 * The flag of a tag whose event the straight path writes: its ts is the
 * TSC's, not the tag's. Above every tag the tests make otherwise.
 */
#define STRAIGHT (1u << 25)

/* Event tag t: its fields and nwords (0..5, one slot) all follow from t. */
struct tagged {
	struct ttrace_event ev;
	uint64_t data[TTRACE_HEAD_WORDS];
};

static void make(struct tagged *e, uint32_t t)
{
	uint32_t base = t & (STRAIGHT - 1);
	uint8_t nwords = (uint8_t)(base % (TTRACE_HEAD_WORDS + 1));

	for (uint32_t w = 0; w < TTRACE_HEAD_WORDS; w++) {
		e->data[w] = w < nwords ? (uint64_t)t << 8 | (w + 1) : 0;
	}
	/* bits 0 and 63 set: the ring keeps neither */
	e->ev = (struct ttrace_event){.ts = (uint64_t)t << 4 | 1 | 1ull << 63,
				      .pid = 1000 + t,
				      .tid = 2000 + t,
				      .kind = TTRACE_KIND_test_tick,
				      .ctx = (uint8_t)(base % 5),
				      .nwords = nwords,
				      .data = e->data};
}

/*
 * Event t | STRAIGHT through the straight path, on this thread's CPU
 * (host_cpu_enter()), its pid, tid and context set there first as a
 * switch or an interrupt's entry sets them. An interrupt's write (nested)
 * puts back those of the write it interrupted before it returns, as the
 * kernel's handlers do with the context.
 */
static void straight_write(uint32_t t, bool nested)
{
	struct tagged e;
	uint64_t ids = this_cpu()->trace_ids;
	uint8_t ctx = percpu_trace_ctx();

	make(&e, t | STRAIGHT);
	host_cpu_ids(e.ev.pid, e.ev.tid);
	percpu_set_trace_ctx(e.ev.ctx);
	ttrace_write_here(e.ev.kind, e.data[0], e.data[1], e.data[2], e.data[3], e.data[4]);
	if (nested) {
		host_cpu_ids((uint32_t)ids, (uint32_t)(ids >> 32));
		percpu_set_trace_ctx(ctx);
	}
}

/*
 * rec must be event t, at index, exactly: every field, words past nwords
 * zero. A straight event's ts is the TSC's, read since since_ts.
 */
static void check(const struct ttrace_record *rec, uint64_t index, uint32_t t, uint64_t since_ts,
		  const char *what)
{
	struct tagged e;

	make(&e, t);
	CHECK_EQ_UINT(rec->index, index, what);
	if (t & STRAIGHT) {
		CHECK(rec->ts % 2 == 0 && rec->ts >= since_ts && rec->ts <= rdtsc(),
		      "%s: ts %llu is not the TSC's since %llu", what, (unsigned long long)rec->ts,
		      (unsigned long long)since_ts);
	} else {
		CHECK_EQ_UINT(rec->ts, (uint64_t)t << 4, what);
	}
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
	uint64_t since;	  /* the TSC before the first write */
};

/* The CPU whose ring is the rig's, for the straight path: this thread's. */
static struct cpu cpu0;

static void rig_get(struct rig *g, uint32_t mode, bool with_reader, uint32_t entries)
{
	const struct ttrace_geometry geo = {.num_cpus = 1,
					    .ring_entries = entries,
					    .aux_ring_size = TTRACE_AUX_RING_MIN,
					    .tsc_hz = 1000000000};

	test_area_get(&g->a, &geo, with_reader);
	g->a.hdr->mode = mode;
	ttrace_ring_get(&g->r, &g->a, 0);
	host_cpu_enter(&cpu0, &g->r);
	ttrace_cursor_init(&g->c, 0);
	g->next_tag = 1;
	g->written = 0;
	g->since = rdtsc();
}

/*
 * A whole write of event t as the kernel's tracepoints make one in the
 * ring's mode: by the straight path in overwrite mode (nested: as an
 * interrupt's), else by the slow path. Returns the tag written (with
 * STRAIGHT for the straight path) and in *stored whether it was stored.
 */
static uint32_t kernel_write(struct rig *g, uint32_t t, bool nested, bool *stored)
{
	struct tagged e;

	/* relaxed: only this thread changes the mode */
	if (__atomic_load_n(&g->a.hdr->mode, __ATOMIC_RELAXED) == TTRACE_MODE_OVERWRITE) {
		straight_write(t, nested);
		*stored = true;
		return t | STRAIGHT;
	}
	make(&e, t);
	*stored = host_slow_write(&g->r, &e.ev);
	return t;
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
		bool stored;

		g->written++;
		kernel_write(g, g->next_tag++, false, &stored);
		CHECK(stored, "%s: lap write %u", what, i);
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
	uint32_t tags[4];
	bool stored;

	for (uint32_t k = 0; k < depth; k++) {
		tags[k] = g.next_tag++;
		make(&e[k], tags[k]);
		g.written++;
		CHECK(ttrace_ring_reserve(&g.r, 1, &index[k]), "%s: reserve %u", what, k);
		CHECK_EQ_UINT(index[k], first + k, what);
	}
	g.written++;
	tags[depth] = kernel_write(&g, g.next_tag++, true, &stored);
	CHECK(stored, "%s: the nested write", what);

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
		check(&out[k], first + k, tags[k], g.since, what);
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

/*
 * Every word count of a one-slot event on the slow path, interrupted by a
 * straight-path event of every word count: zeros past nwords each time.
 */
TEST(ring_nested_every_word_count)
{
	struct ttrace_record out[READ_MAX];
	struct rig g;

	rig_get(&g, TTRACE_MODE_OVERWRITE, false, ENTRIES);
	for (uint32_t outer = 0; outer <= TTRACE_HEAD_WORDS; outer++) {
		for (uint32_t inner = 0; inner <= TTRACE_HEAD_WORDS; inner++) {
			char what[64];
			struct tagged o;
			uint64_t index;
			/* tags whose word counts are outer and inner (t % 6) */
			uint32_t to = 6 * (g.next_tag / 6 + 1) + outer;
			uint32_t ti = to + 6 + (inner + 6 - outer) % 6;

			snprintf(what, sizeof(what), "%u words around %u", outer, inner);
			g.next_tag = ti + 1;
			make(&o, to);
			CHECK(ttrace_ring_reserve(&g.r, 1, &index), "%s: reserve", what);
			straight_write(ti, true);
			ttrace_ring_commit(&g.r, index, &o.ev);
			g.written += 2;
			CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), 2, what);
			check(&out[0], index, to, g.since, what);
			check(&out[1], index + 1, ti | STRAIGHT, g.since, what);
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
		CHECK(host_slow_write(&g.r, &e.ev), "fill %u", k);
	}
	make(&o, g.next_tag++);
	make(&i, g.next_tag++);
	g.written += 2;
	CHECK(ttrace_ring_reserve(&g.r, 1, &index), "the last slot");
	CHECK_EQ_UINT(index, ENTRIES - 1, "the last slot");
	CHECK(!host_slow_write(&g.r, &i.ev), "the nested write is dropped");
	ttrace_ring_commit(&g.r, index, &o.ev);
	CHECK_EQ_UINT(ttrace_ring_read(&g.r, &g.c, out, READ_MAX), ENTRIES, "a full ring");
	check(&out[ENTRIES - 1], ENTRIES - 1, g.next_tag - 2, g.since, "the interrupted event");
	CHECK_EQ_UINT(g.c.lost, 0, "nothing lost");
	check_ledger(&g, 1, "one dropped");
	test_area_put(&g.a);
}

/* The signal handler's rig, and what it wrote. */
static struct rig *signal_rig;
static volatile sig_atomic_t signal_writes;

#define SIGNAL_TAG     (1u << 24) /* the handler's tags: above the main loop's */
#define SIGNAL_WANT    2000	  /* signals to take before stopping */
#define SIGNAL_LIMIT   20000000	  /* main-loop writes at most, if signals are scarce */
#define SIGNAL_ENTRIES 4096	  /* no burst of signals laps it inside one write */

static void on_alarm(int sig)
{
	bool stored;

	(void)sig;
	kernel_write(signal_rig, SIGNAL_TAG + (uint32_t)signal_writes, true, &stored);
	signal_writes++;
}

/* Checks n records of g as the events their pids name, and counts them in *received. */
static void check_all(const struct rig *g, const struct ttrace_record *out, size_t n,
		      uint64_t *received, const char *what)
{
	for (size_t k = 0; k < n; k++) {
		check(&out[k], out[k].index, out[k].pid - 1000, g->since, what);
	}
	*received += n;
}

/*
 * A timer signal (every 20 us) writes an event wherever it lands in the
 * main loop's writes, as an interrupt does on the ring's CPU: between a
 * reserve and its commit, and inside the reservation itself, where a
 * split read-modify-write of head would hand one index out twice (and of
 * dropped, lose a count). In overwrite mode the main loop writes by the
 * straight path and the slow path in turn, and the signal by the straight
 * path; in drop mode both by the slow path, as the kernel's tracepoints. Every write must be
 * counted exactly once and every event read must be whole. With streaming, the main loop also reads
 * what it can after each write and publishes its tail, so drop mode goes on reserving (its
 * compare-and-exchange); the reader then accounts for every entry, and in drop mode loses none. (A
 * burst of signals may still outrun it: what it missed is counted, lost or dropped. The ring is
 * large so that no burst laps a write the signal interrupted, which the protocol rules out:
 * ring_write.h.)
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
	signal_rig = &g;
	signal_writes = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, &old) == 0, "%s: sigaction", what);
	CHECK(setitimer(ITIMER_REAL, &every, NULL) == 0, "%s: setitimer", what);
	while (signal_writes < SIGNAL_WANT && main_writes < SIGNAL_LIMIT) {
		uint32_t t = (uint32_t)(main_writes % SIGNAL_TAG);
		struct tagged e;

		if (main_writes++ % 2 && mode == TTRACE_MODE_OVERWRITE) {
			straight_write(t, false);
		} else {
			make(&e, t);
			host_slow_write(&g.r, &e.ev);
		}
		while (streaming && (n = ttrace_ring_read(&g.r, &g.c, out, READ_MAX))) {
			check_all(&g, out, n, &received, what);
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
		check_all(&g, out, n, &received, what);
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

#define PASSES_MAX 200 /* far more steps than the straight path takes */
#define STEP_TAG   (1u << 23)

/* [the stepping thread and its SIGTRAP handler] The pass being stepped. */
static volatile sig_atomic_t step_count;   /* steps taken in this pass */
static volatile sig_atomic_t step_nest_at; /* the step after which two events nest */
static volatile sig_atomic_t step_nested;  /* they did */
static struct rig *step_rig;
static struct ttrace_cursor step_from; /* a reader's cursor where the pass began */

/*
 * After every step, a reader from where the pass began: whatever it
 * returns is whole (an event being written is not returned). After step
 * step_nest_at, two events, as an interrupt's entry and exit would write
 * them.
 */
static void on_step(int sig)
{
	struct ttrace_record out[READ_MAX];
	struct ttrace_cursor c = step_from;
	size_t n = ttrace_ring_read(&step_rig->r, &c, out, READ_MAX);

	(void)sig;
	for (size_t i = 0; i < n; i++) {
		check(&out[i], out[i].index, out[i].pid - 1000, step_rig->since, "read at a step");
	}
	if (++step_count == step_nest_at) {
		straight_write(STEP_TAG + 2 * (uint32_t)step_nest_at, true);
		straight_write(STEP_TAG + 2 * (uint32_t)step_nest_at + 1, true);
		step_nested = 1;
	}
}

/*
 * The straight path's write of event t with RFLAGS.TF set around it, so
 * that every instruction of it traps. pushfq and popfq go below the red
 * zone, where this function may keep its own words.
 */
static __attribute__((noinline)) void stepped_write(uint32_t t)
{
	struct tagged e;

	make(&e, t | STRAIGHT);
	host_cpu_ids(e.ev.pid, e.ev.tid);
	percpu_set_trace_ctx(e.ev.ctx);
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "pushfq\n\t"
			 "orq %0, (%%rsp)\n\t"
			 "popfq\n\t"
			 "lea 128(%%rsp), %%rsp"
			 :
			 : "i"(RFLAGS_TF)
			 : "cc", "memory");
	ttrace_write_here(e.ev.kind, e.data[0], e.data[1], e.data[2], e.data[3], e.data[4]);
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "pushfq\n\t"
			 "andq %0, (%%rsp)\n\t"
			 "popfq\n\t"
			 "lea 128(%%rsp), %%rsp"
			 :
			 : "i"(~RFLAGS_TF)
			 : "cc", "memory");
}

/*
 * The straight path single-stepped, as selftest=tracenest steps it in the
 * kernel: in pass k, two events are written after its k-th step, until a
 * pass ends before its k-th step. Each pass's events read back whole, in
 * index order by time: nested between the load of head and the exchange,
 * they make the exchange fail and the path reads the clock again (such a
 * pass takes more steps than one without nesting); nested after the
 * exchange, they take the indices after the interrupted event's, and the
 * reader waits at it until it is committed. A reader after every step
 * returns only whole events.
 */
TEST(ring_nested_straight_path_stepped)
{
	struct ttrace_record out[READ_MAX];
	struct sigaction sa, old;
	uint32_t steps[PASSES_MAX + 1], passes = 0, before = 0, inside = 0, retried = 0;
	cpu_set_t was, here;
	struct rig g;

	/* on one host CPU, so that its TSC reads rise, as a ring's on its own CPU */
	CHECK(sched_getaffinity(0, sizeof(was), &was) == 0, "sched_getaffinity");
	CPU_ZERO(&here);
	CPU_SET(sched_getcpu(), &here);
	CHECK(sched_setaffinity(0, sizeof(here), &here) == 0, "sched_setaffinity");
	rig_get(&g, TTRACE_MODE_OVERWRITE, false, ENTRIES);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_step;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTRAP, &sa, &old) == 0, "sigaction");
	for (uint32_t k = 1; k <= PASSES_MAX; k++) {
		char what[64];
		uint32_t t = g.next_tag++;
		uint64_t first = g.c.index;

		snprintf(what, sizeof(what), "pass %u", k);
		step_rig = &g;
		step_from = g.c;
		step_count = 0;
		step_nest_at = (sig_atomic_t)k;
		step_nested = 0;
		stepped_write(t);
		g.written += step_nested ? 3 : 1;
		size_t n = ttrace_ring_read(&g.r, &g.c, out, READ_MAX);

		CHECK_EQ_UINT(n, step_nested ? 3 : 1, what);
		for (size_t i = 0; i < n; i++) {
			uint32_t tag = out[i].pid - 1000;

			check(&out[i], first + i, tag, g.since, what);
			CHECK(i == 0 || out[i].ts > out[i - 1].ts,
			      "%s: index %llu's ts is not after %llu's", what,
			      (unsigned long long)out[i].index,
			      (unsigned long long)out[i - 1].index);
		}
		steps[k] = (uint32_t)step_count;
		if (!step_nested) {
			passes = k;
			break;
		}
		before += n == 3 && out[2].pid - 1000 == (t | STRAIGHT);
		inside += n == 3 && out[0].pid - 1000 == (t | STRAIGHT);
	}
	sigaction(SIGTRAP, &old, NULL);
	sched_setaffinity(0, sizeof(was), &was);
	CHECK(passes > 0, "the path ended within %u steps", PASSES_MAX);
	/* the last pass nested nothing: a pass that took more steps went round again */
	for (uint32_t k = 1; k < passes; k++) {
		retried += steps[k] > steps[passes];
	}
	CHECK(before > 0 && inside > 0 && retried > 0,
	      "nested before the reservation %u times (%u of them making it go round again), "
	      "inside it %u times",
	      before, retried, inside);
	check_ledger(&g, 0, "stepped");
	test_area_put(&g.a);
}
