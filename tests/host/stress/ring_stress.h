/*
 * ring_stress: the multi-writer stress of the trace rings (common/
 * trace_ring.c, kernel/trace/ring_write.c, kernel/trace/recorder.c), run
 * by tests/host/stress/main.c, built twice (tests/host/stress.mk): with
 * ThreadSanitizer and at -O2 without sanitizers.
 *
 * One writer thread per simulated CPU writes events of 0 to
 * TTRACE_CONT_MAX continuations into a tiny ring with the kernel's two
 * writers (tests/host/writers.h): events of one slot in overwrite mode
 * half the time by the tracepoints' straight path, on a simulated CPU
 * its %gs points at, the others by the slow path's reserve and commit,
 * nesting writes between the two the way interrupts do (on the same
 * thread: a ring has one writer). Every event carries its number and a
 * checksum of everything else it holds. A streaming reader follows every
 * ring (publishing its drop-mode tails), a flight-recorder reader keeps
 * reading the newest entries as the panic path does, a control thread
 * clears rings, switches modes and checks the ledger as it moves, and
 * another thread checks the ledger from outside the clears. Every
 * event a reader returns must pass its checksum and come after the one
 * before it on its CPU; at the end, the ledger must add up exactly (see
 * ring_stress.c).
 */
#ifndef SPOOR_TESTS_HOST_STRESS_RING_STRESS_H
#define SPOOR_TESTS_HOST_STRESS_RING_STRESS_H

#include <stdbool.h>
#include <stdint.h>

/* What one run does besides writing and reading. */
struct ring_stress_config {
	const char *name;
	uint32_t mode;	   /* TTRACE_MODE_* to start in */
	bool clears;	   /* the control thread clears rings */
	bool mode_changes; /* the control thread switches between the two modes */
	uint64_t ms;	   /* how long the writers write */
	uint64_t seed;	   /* of every thread's random numbers */
};

/* What a run saw, summed over the CPUs. */
struct ring_stress_totals {
	uint64_t events;      /* events the writers attempted */
	uint64_t straight;    /* of them, written by the straight path */
	uint64_t nested;      /* of them, written between another's reserve and commit */
	uint64_t received;    /* entries the streaming reader got */
	uint64_t recorded;    /* events the flight-recorder reader got */
	uint64_t overwritten; /* the ledger's, at the end */
	uint64_t dropped;
	uint64_t cleared;
	uint64_t clears; /* clears the control thread made */
	uint64_t mode_changes;
	uint32_t cpus_idle; /* CPUs whose writer wrote nothing */
};

/*
 * Runs one configuration. Returns the number of failures (0: every check
 * held) and, in *first, the first one's message; *t gets the totals.
 */
int ring_stress_run(const struct ring_stress_config *cfg, struct ring_stress_totals *t, char *first,
		    unsigned first_size);

#endif
