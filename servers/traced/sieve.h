/*
 * sieve: a filter applied to a range of one CPU's slots already copied
 * out at once (ranges.h), for saves and recordings with a filter or a
 * SELF caller's scope (abi/trace_file.h, PER-CPU SAVES and CHUNKS): the
 * events it leaves out are moved over in place, so the only work an
 * event costs beyond the range's is the test itself. The filter is
 * compiled once per save or recording into what a slot's own words
 * answer: a byte a kind (cat= and kind= together), pid and tid, a
 * pid set (tree=, the scope), and the time window as TSC bounds.
 *
 * count= and last= select by position in the merged stream of every
 * CPU, which no CPU's range knows: such a filter has no sieve, and its
 * saves still go through the merge (merge.c).
 */
#ifndef SPOOR_TRACED_SIEVE_H
#define SPOOR_TRACED_SIEVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/traced.h"
#include "common/trace_filter_pred.h"
#include "servers/traced/ranges.h"
#include "servers/traced/scope.h"

#define SIEVE_KINDS (TRACED_KIND_WORDS * 64)

struct sieve {
	uint8_t pass[SIEVE_KINDS]; /* 1: kind k passes cat= and kind= (a byte: one compare) */
	bool other_kinds;	   /* kinds past SIEVE_KINDS pass (no cat= or kind=) */
	bool all;		   /* nothing to test: every event passes */
	bool more;		   /* a test past the kind's: pid, tid, a set, a window */
	uint32_t cpus;		   /* bit c: CPU c's events may pass (cpu=) */
	uint32_t flags;		   /* TRACED_F_PID, TID, SINCE, UNTIL as they apply */
	uint32_t pid, tid;
	const struct scope *tree;	       /* tree=: the pid and its descendants; NULL: none */
	const struct scope *scope;	       /* a SELF caller's processes; NULL: all */
	uint64_t since_ts;		       /* the first ts in the window (TRACED_F_SINCE) */
	uint64_t until_ts;		       /* the first ts after it (TRACED_F_UNTIL) */
	uint32_t memo_pid;		       /* the last pid the sets were asked about, and */
	bool memo_in, memo_valid;	       /* their answer: events come in runs of one pid */
	const struct ttrace_filter_pred *pred; /* a save's predicate (pred.h); NULL: none */
};

/*
 * What sieve_range() saw of a range, with since= or until= only: a save
 * tells its losses apart by it.
 */
struct sieve_seen {
	uint64_t next_ts; /* the ts of the first event after its loss marker; 0: none */
	uint64_t last_ts; /* the ts of its last event, kept or not; 0: none */
};

/*
 * Compiles f and scope (NULL: everything) into *s. Returns false, setting
 * nothing, when f selects by position in the merged stream (count=,
 * last=): such a filter has no sieve. Reads the aux ring for tree= (the
 * processes as they are now: a recording compiles its sieve again each
 * chunk, as the merge builds its tree each page).
 */
bool sieve_init(struct sieve *s, const struct traced_filter *f, const struct scope *scope);

/*
 * Adds a save's predicate (pred.h; NULL: none) to s, which sieve_init()
 * made: an event must pass it too. A recording takes none.
 */
void sieve_pred(struct sieve *s, const struct ttrace_filter_pred *pred);

/* Whether s leaves out every event of CPU cpu (cpu=): its losses cannot have matched. */
bool sieve_cpu_out(const struct sieve *s, uint32_t cpu);

/*
 * Keeps, of the range r of CPU cpu at out as range_copy() wrote it (a
 * loss marker first, if any, then whole events), the marker and the
 * events s passes, in their order, at the start of out, and takes the
 * others out of r's events, entries and len (its lost stays: what the
 * sieve leaves out is not lost). *seen as struct sieve_seen says.
 */
void sieve_range(struct sieve *s, uint32_t cpu, uint8_t *out, struct range *r,
		 struct sieve_seen *seen);

#endif
