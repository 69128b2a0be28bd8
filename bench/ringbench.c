/*
 * ringbench: Spoor's ring writers, the tracepoints' straight path and the
 * slow path's ring write, against the physical floor of a 64-byte
 * timestamped record and against LTTng-UST, natively on the host. make
 * bench runs it through bench/run-ringbench, which starts the LTTng
 * session daemon and the two sessions it names (-d, -s, -o); without
 * them the LTTng rows are left out, said so.
 *
 * Pinned to one CPU, it runs each row's loop (loops.h) on a batch of
 * events, row after row, round after round, starting each round one row
 * further on, so that every row sees the same machine and no row always
 * follows the same one: ratios taken within one run then mean something
 * on a busy machine too. It prints ns/event for each row, the median and
 * the minimum over the rounds, and the ratios; it judges no figure. It
 * exits 0, or 1 if it could not run or the Spoor ring's ledger does not
 * add up (a correctness check, not a timing one).
 *
 * usage: ringbench [-v] [-r ROUNDS] [-n EVENTS] [-c CPU] [-d SESSION -s SESSION -o DIR]
 * (-v: every round's figures too; -d: the discard session, -s: the
 * snapshot session, -o: its output)
 */
#define _GNU_SOURCE

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abi/trace.h"
#include "bench/loops.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"
#include "trace/area_init.h"

#define ROUNDS_MIN     10
#define ROUNDS_DEFAULT 15
#define EVENTS_DEFAULT 1000000
#define RING_KB	       1024 /* the kernel's default ttrace.ring_kb (kernel/init/options.c) */
#define PAGE	       4096

enum row_id {
	ROW_SPOOR,
	ROW_SPOOR_SLOW,
	ROW_FLOOR,
	ROW_LTTNG_DISCARD,
	ROW_LTTNG_SNAPSHOT,
	ROW_SPOOR_DISABLED,
	ROW_LTTNG_DISABLED,
	ROW_EMPTY,
	ROW_COUNT
};

struct row {
	const char *name;
	void (*run)(uint64_t n);
	bool lttng; /* needs the LTTng sessions */
	double *ns; /* ns/event, one a round */
	double median, min;
};

static struct row rows[ROW_COUNT] = {
    [ROW_SPOOR] = {"spoor ring write", loop_spoor, false, NULL, 0, 0},
    [ROW_SPOOR_SLOW] = {"spoor slow path's write", loop_spoor_slow, false, NULL, 0, 0},
    [ROW_FLOOR] = {"floor (rdtsc+8 stores)", loop_floor, false, NULL, 0, 0},
    [ROW_LTTNG_DISCARD] = {"lttng-ust discard", loop_lttng_discard, true, NULL, 0, 0},
    [ROW_LTTNG_SNAPSHOT] = {"lttng-ust snapshot", loop_lttng_snapshot, true, NULL, 0, 0},
    [ROW_SPOOR_DISABLED] = {"spoor disabled", loop_spoor_disabled, false, NULL, 0, 0},
    [ROW_LTTNG_DISABLED] = {"lttng-ust disabled", loop_lttng_disabled, true, NULL, 0, 0},
    [ROW_EMPTY] = {"empty loop", loop_empty, false, NULL, 0, 0},
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ringbench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/*
 * Wall-clock time. Not the thread's CPU time: in a virtual machine that
 * accounts steal time, the scheduler may charge a batch for less than it
 * ran (steal is settled at ticks), which made minimums fall below the
 * floor. A batch that another process preempted only comes out slower,
 * and the minimum over the rounds leaves it out.
 */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Pins the process to cpu, or to the last CPU it may run on if cpu < 0; returns the CPU. */
static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set)) {
			die("sched_getaffinity: %s", strerror(errno));
		}
		for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--) {
			if (CPU_ISSET(c, &set)) {
				cpu = c;
			}
		}
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		die("sched_setaffinity: %s", strerror(errno));
	}
	return sched_getcpu();
}

static void *page_alloc(uint64_t bytes)
{
	void *p = aligned_alloc(PAGE, (bytes + PAGE - 1) / PAGE * PAGE);

	if (!p) {
		die("out of memory");
	}
	return p;
}

/* A one-CPU area with the kernel's default ring size, laid out by the kernel's own code. */
static void area_make(struct ttrace_area *a)
{
	const struct ttrace_geometry g = {.num_cpus = 1,
					  .ring_entries = RING_KB * 1024 / TTRACE_ENTRY_SIZE,
					  .aux_ring_size = TTRACE_AUX_RING_MIN,
					  .tsc_hz = 1000000000};
	struct ttrace_header *h = page_alloc(PAGE);

	if (ttrace_header_init(h, &g)) {
		die("ttrace_header_init refused the geometry");
	}
	*a = (struct ttrace_area){
	    .hdr = h,
	    .reader = page_alloc(h->reader_bytes),
	    .rings = page_alloc(h->num_cpus * h->ring_bytes),
	    .aux = page_alloc(h->aux_durable_size + h->aux_ring_size),
	    .hdr_len = h->header_bytes,
	    .reader_len = h->reader_bytes,
	    .rings_len = h->num_cpus * h->ring_bytes,
	    .aux_len = h->aux_durable_size + h->aux_ring_size,
	};
	if (ttrace_area_init(a)) {
		die("ttrace_area_init refused the area");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void summarise(struct row *r, int rounds)
{
	double sorted[rounds];

	memcpy(sorted, r->ns, sizeof(sorted));
	qsort(sorted, rounds, sizeof(double), cmp_double);
	r->min = sorted[0];
	r->median =
	    rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
}

static void ratio(const char *what, enum row_id num, enum row_id den)
{
	printf("ringbench: %-28s %6.2f by min, %6.2f by median\n", what,
	       rows[num].min / rows[den].min, rows[num].median / rows[den].median);
}

/* Session names go into a shell command line: only these characters. */
static bool name_ok(const char *s)
{
	return *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
		   strlen(s);
}

/*
 * Stops the discard session (so every buffer is flushed and its counters
 * final) and prints what `lttng list` says it lost over its channels:
 * discarded events (discard mode) and lost packets.
 */
static void report_discard(const char *name)
{
	char cmd[256], line[512];
	unsigned long long discarded = 0, lost = 0, v;
	bool seen = false;

	snprintf(cmd, sizeof(cmd), "lttng stop %s >/dev/null 2>&1", name);
	int stopped = system(cmd);
	snprintf(cmd, sizeof(cmd), "lttng list %s 2>/dev/null", name);
	FILE *f = stopped == 0 ? popen(cmd, "r") : NULL;

	while (f && fgets(line, sizeof(line), f)) {
		const char *p;

		if ((p = strstr(line, "Discarded events:")) &&
		    sscanf(p, "Discarded events: %llu", &v) == 1) {
			discarded += v;
			seen = true;
		} else if ((p = strstr(line, "Lost packets:")) &&
			   sscanf(p, "Lost packets: %llu", &v) == 1) {
			lost += v;
			seen = true;
		}
	}
	if (!f || pclose(f) != 0 || !seen) {
		printf("ringbench: lttng discard session '%s': lttng did not report its losses\n",
		       name);
		return;
	}
	printf("ringbench: lttng discard session: %llu events discarded, %llu packets lost (lttng "
	       "list)%s\n",
	       discarded, lost,
	       discarded || lost ? " -- THIS RUN DISCARDED: its lttng row is too low" : "");
}

/*
 * The snapshot session: lttng keeps no loss statistics for snapshot
 * sessions (`lttng list` says None), so it records a snapshot into dir
 * and reads it with babeltrace2, which reports every discard the packets'
 * events_discarded counters show, as "discarded N events" warnings.
 */
static void report_snapshot(const char *name, const char *dir)
{
	char cmd[512], line[1024];
	unsigned long long events = 0, discarded = 0, v;

	snprintf(cmd, sizeof(cmd),
		 "lttng stop %s >/dev/null 2>&1 && lttng snapshot record -s %s >/dev/null 2>&1",
		 name, name);
	int recorded = system(cmd);
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", dir);
	FILE *f = recorded == 0 ? popen(cmd, "r") : NULL;

	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "discarded ");

		if (line[0] == '[') {
			events++;
		} else if (p && sscanf(p, "discarded %llu event", &v) == 1) {
			discarded += v;
		}
	}
	if (!f || pclose(f) != 0 || events == 0) {
		printf("ringbench: lttng snapshot session '%s': no snapshot to read\n", name);
		return;
	}
	printf(
	    "ringbench: lttng snapshot session: %llu events discarded (babeltrace2 on a snapshot "
	    "of %llu events; lttng list keeps no statistics for snapshot sessions)%s\n",
	    discarded, events, discarded ? " -- THIS RUN DISCARDED: its lttng row is too low" : "");
}

int main(int argc, char **argv)
{
	int rounds = ROUNDS_DEFAULT, cpu = -1, opt;
	bool verbose = false;
	uint64_t events = EVENTS_DEFAULT;
	const char *discard = NULL, *snapshot = NULL, *snapshot_dir = NULL;

	while ((opt = getopt(argc, argv, "r:n:c:d:s:o:v")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'n':
			events = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'd':
			discard = optarg;
			break;
		case 's':
			snapshot = optarg;
			break;
		case 'o':
			snapshot_dir = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: ringbench [-v] [-r ROUNDS] [-n EVENTS] [-c CPU] "
				"[-d DISCARD_SESSION -s SNAPSHOT_SESSION -o SNAPSHOT_DIR]\n");
			return 1;
		}
	}
	if (rounds < ROUNDS_MIN || events == 0) {
		die("at least 10 rounds of at least one event");
	}
	if (!discard != !snapshot || !snapshot != !snapshot_dir ||
	    (discard && (!name_ok(discard) || !name_ok(snapshot) || strchr(snapshot_dir, '\'')))) {
		die("-d, -s and -o come together: session names of [A-Za-z0-9_-], the snapshot "
		    "session's output directory");
	}
	bool lttng = discard != NULL;

	if (lttng && !loops_lttng_enabled()) {
		die("the LTTng sessions did not enable spoor_bench:discard and "
		    "spoor_bench:snapshot (is the session daemon ours?)");
	}

	struct ttrace_area area;
	struct ttrace_ring ring;

	area_make(&area);
	ttrace_ring_get(&ring, &area, 0);
	loops_init(&ring, page_alloc(ring.entries * TTRACE_ENTRY_SIZE));
	int on = pin(cpu);

	printf("ringbench: pinned to cpu %d; %d rounds of %llu events a row, the rows interleaved "
	       "round by round; ring of %llu slots\n",
	       on, rounds, (unsigned long long)events, (unsigned long long)ring.entries);
	if (!lttng) {
		printf(
		    "ringbench: no LTTng sessions given (-d, -s): the lttng rows are left out\n");
	}
	for (int k = 0; k < ROW_COUNT; k++) {
		rows[k].ns = calloc(rounds, sizeof(double));
		if (!rows[k].ns) {
			die("out of memory");
		}
	}

	/* One round untimed: page faults, caches, LTTng's first packets. */
	for (int k = 0; k < ROW_COUNT; k++) {
		if (lttng || !rows[k].lttng) {
			rows[k].run(events);
		}
	}
	for (int r = 0; r < rounds; r++) {
		for (int j = 0; j < ROW_COUNT; j++) {
			struct row *row = &rows[(r + j) % ROW_COUNT];

			if (!lttng && row->lttng) {
				continue;
			}
			uint64_t t0 = now_ns();
			row->run(events);
			uint64_t t1 = now_ns();

			row->ns[r] = (double)(t1 - t0) / (double)events;
		}
	}

	printf("ringbench: %-28s %10s %10s\n", "ns/event", "median", "min");
	for (int k = 0; k < ROW_COUNT; k++) {
		if (!lttng && rows[k].lttng) {
			continue;
		}
		summarise(&rows[k], rounds);
		printf("ringbench: %-28s %10.3f %10.3f\n", rows[k].name, rows[k].median,
		       rows[k].min);
		for (int r = 0; verbose && r < rounds; r++) {
			printf("ringbench:   round %2d %8.3f\n", r, rows[k].ns[r]);
		}
	}
	ratio("spoor/floor", ROW_SPOOR, ROW_FLOOR);
	ratio("spoor slow path/straight", ROW_SPOOR_SLOW, ROW_SPOOR);
	if (lttng) {
		ratio("lttng discard/spoor", ROW_LTTNG_DISCARD, ROW_SPOOR);
		ratio("lttng snapshot/spoor", ROW_LTTNG_SNAPSHOT, ROW_SPOOR);
	}
	ratio("spoor disabled/empty", ROW_SPOOR_DISABLED, ROW_EMPTY);
	if (lttng) {
		ratio("lttng disabled/empty", ROW_LTTNG_DISABLED, ROW_EMPTY);
		report_discard(discard);
		report_snapshot(snapshot, snapshot_dir);
	}

	struct ttrace_counts c;
	/* two Spoor rows write into the ring: the straight path and the slow one */
	uint64_t written = 2 * (uint64_t)(rounds + 1) * events;

	if (ttrace_ring_counts(&ring, &c) || c.emitted != written ||
	    c.emitted != c.stored + c.overwritten + c.dropped + c.cleared) {
		printf("ringbench: spoor ledger WRONG: wrote %llu, emitted %llu = stored %llu + "
		       "overwritten %llu + dropped %llu + cleared %llu\n",
		       (unsigned long long)written, (unsigned long long)c.emitted,
		       (unsigned long long)c.stored, (unsigned long long)c.overwritten,
		       (unsigned long long)c.dropped, (unsigned long long)c.cleared);
		return 1;
	}
	printf("ringbench: spoor ledger exact: emitted %llu = stored %llu + overwritten %llu\n",
	       (unsigned long long)c.emitted, (unsigned long long)c.stored,
	       (unsigned long long)c.overwritten);
	return 0;
}
