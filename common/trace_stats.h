/*
 * trace_stats: the answers of STATS (abi/traced.h): counts of each kind
 * and the latencies of paired events (a syscall's entry to its exit, an
 * IPC call to its reply, a page fault, a wakeup to the switch that runs
 * the thread), as a table, key=value lines or one measure's log2
 * histogram. traced folds the events of a dump into it and spoor-trace
 * those of a saved file, so the shell's `trace stats` and the host's
 * `spoor-trace stats` are one computation and one text.
 *
 * Memory is the caller's struct ttrace_stats and bounded whatever the
 * window: TTRACE_STATS_ROWS rows of at most TRACED_STATS_VALUES distinct
 * values, and TRACED_STATS_THREADS pending first halves. Events must come
 * in time order, as a dump gives them; a loss unpairs what is pending.
 */
#ifndef SPOOR_COMMON_TRACE_STATS_H
#define SPOOR_COMMON_TRACE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "abi/traced.h"
#include "common/format.h"
#include "common/trace_decoder.h"

#define TTRACE_STATS_ROWS 128 /* measure rows: syscalls, endpoints x paths, outcomes, cpus */
#define TTRACE_STATS_OCTAVES                                                                       \
	40			/* log2 buckets of microseconds: the last holds 2^39 us and more   \
				 */
#define TTRACE_STATS_SUB_BITS 3 /* each octave in 2^SUB_BITS steps: percentiles to an eighth */
/* Log-linear buckets (see fine_of() in trace_stats.c). */
#define TTRACE_STATS_FINE                                                                          \
	((TTRACE_STATS_OCTAVES - TTRACE_STATS_SUB_BITS + 1) << TTRACE_STATS_SUB_BITS)

/* One row: the latencies of one measure and key. */
struct ttrace_stats_row {
	uint32_t measure; /* TRACED_MEASURE_*; 0: unused */
	uint64_t key;	  /* syscall number, endpoint, outcome or cpu */
	uint32_t path;	  /* ipc: TRACED_PATH_FAST or _SLOW */
	uint64_t count, unpaired;
	uint64_t min, max;
	bool approx; /* more distinct values than value[] holds: percentiles from fine[] */
	uint32_t nvalues;
	struct {
		uint64_t us;
		uint64_t n;
	} value[TRACED_STATS_VALUES];	  /* sorted by us */
	uint32_t fine[TTRACE_STATS_FINE]; /* hist sums them into octaves */
};

/* A first half waiting for its second: one per thread and measure. */
struct ttrace_stats_pending {
	uint32_t tid; /* 0: free */
	uint32_t measure;
	uint64_t us;
	uint64_t key;  /* the row the pair will go to */
	uint32_t path; /* ipc: fast once the caller's fastpath is seen */
};

/* The thread seen taking calls on an endpoint: the server its IPC rows name. */
struct ttrace_stats_server {
	uint64_t endpoint;
	uint32_t tid; /* 0: free */
};

struct ttrace_stats {
	const struct ttrace_header *hdr; /* its clock: times as a dump prints them */
	uint64_t events, lost;
	uint64_t outside, early; /* of lost, what the caller knows of them (abi/traced.h LOSSES) */
	uint64_t kinds[TTRACE_KIND_LIMIT];
	struct ttrace_stats_row row[TTRACE_STATS_ROWS];
	struct ttrace_stats_pending pending[TRACED_STATS_THREADS];
	struct ttrace_stats_server server[TTRACE_STATS_ROWS]; /* as many as rows can name */
};

/* Empties *s for a new window of the trace whose header is h. */
void ttrace_stats_start(struct ttrace_stats *s, const struct ttrace_header *h);

/* Folds one event (its head entry; continuations carry nothing it uses). */
void ttrace_stats_event(struct ttrace_stats *s, const struct ttrace_entry *e);

/* Counts n entries lost: every pending first half becomes unpaired. */
void ttrace_stats_lost(struct ttrace_stats *s, uint64_t n);

/* Ends the window: the first halves still pending are unpaired. */
void ttrace_stats_finish(struct ttrace_stats *s);

/*
 * The answer as text into out: the table (kv false) or key=value lines
 * (kv true) of s, with the kinds the filter f names shown even at 0, and
 * losses (the lines that say what the window's losses mean, or "") after
 * the head line of the table. d names the system calls, and the server
 * behind each IPC row's endpoint: the program of the thread last seen
 * taking a call on it (an ipc_recv's thread, a caller's ipc_fastpath or
 * ipc_slowpath peer), `(?)` when the window shows none; in a key=value
 * line, server=NAME.
 */
void ttrace_stats_print(const struct ttrace_stats *s, struct format_buf *out,
			const struct traced_filter *f, bool kv, const struct ttrace_decoder *d,
			const char *losses);

/* The histogram r asks for (its measure, key and path), as bpftrace draws one. */
void ttrace_stats_print_hist(const struct ttrace_stats *s, struct format_buf *out,
			     const struct traced_stats_request *r, const char *losses);

#endif
