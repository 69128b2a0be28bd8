/*
 * name_holds: which program names (the PROC records of the aux ring) a
 * dump may still need, so the aux writer moves them instead of evicting
 * them (struct ttrace_aux_keeper). A name is needed while its process
 * lives, and after it is freed until every event it can have left in the
 * rings is gone: for each CPU, until the oldest stored index (the larger
 * of head - ring_entries and clear_index) reaches the head that CPU's
 * ring had when the process was freed, since no event of the process is
 * written after that. Thread records are not held: a dump names the
 * program of an event by its pid.
 *
 * Pure: the host tests compile it (KERNEL_PURE). The caller serialises
 * every call, and the keeper's callbacks, with the aux writer's lock.
 * The table is bounded: when it is full, the hold of the process freed
 * longest ago goes first (its name may then be evicted: `comm=?`), and a
 * name that finds no room, every hold being of a live process, is not
 * held.
 */
#ifndef SPOOR_TRACE_NAME_HOLDS_H
#define SPOOR_TRACE_NAME_HOLDS_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_header.h"
#include "trace/aux_write.h"

#define NAME_HOLDS_MAX 512

struct name_hold {
	uint64_t pos;			/* the PROC record's aux position; 0: a free slot */
	uint64_t freed;			/* order of freeing, 0 while the process lives */
	uint64_t head[TTRACE_MAX_CPUS]; /* each ring's head when the process was freed */
	uint32_t pid;
};

struct name_holds {
	const struct ttrace_area *area;
	uint64_t frees; /* processes freed so far: the next freed order */
	struct name_hold hold[NAME_HOLDS_MAX];
};

/* Starts an empty table over area. */
void name_holds_init(struct name_holds *n, const struct ttrace_area *area);

/* Holds the name of the live process pid, recorded at aux position pos. */
void name_holds_add(struct name_holds *n, uint32_t pid, uint64_t pos);

/* The process pid was freed: its name is held until its events are gone. */
void name_holds_freed(struct name_holds *n, uint32_t pid);

/* The keeper to pass the aux writer: it keeps the held names. */
struct ttrace_aux_keeper name_holds_keeper(struct name_holds *n);

#endif
