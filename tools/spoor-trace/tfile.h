/*
 * tfile: what a trace file is once read and checked (struct tfile), the
 * type the parser's parts fill (file.c, file_parse.c, chunks.c) and
 * every converter walks through file.h.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TFILE_H
#define SPOOR_TOOLS_SPOOR_TRACE_TFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace_file.h"

/*
 * The largest aux part this reader accepts, each of the durable part and
 * the ring: the kernel's largest ttrace.aux_kb. A view holds both in
 * memory, so a corrupt size must not make it allocate gigabytes.
 */
#define TFILE_AUX_MAX (64ull << 20)

/* The longest refusal, "byte N: ..." */
#define TFILE_WHY_MAX 256

/* One EVENTS or CPU_EVENTS section's slots. */
struct tfile_span {
	uint64_t offset; /* of its first slot in the file */
	uint64_t size;	 /* bytes, whole slots */
	uint32_t stream; /* 0: EVENTS, merged already; c + 1: CPU c's CPU_EVENTS (minor 3) */
};

struct tfile {
	const uint8_t *data; /* the whole file; the caller's, kept while this is used */
	size_t size;
	struct ttrace_file_header hdr; /* the fields this reader knows */
	/* A SAVE'S PREDICATE: the text, checked (no NUL, compiles for hdr.filter); "": none. */
	char pred[TTRACE_PRED_TEXT_MAX + 1];

	struct tfile_span *spans; /* the EVENTS sections, in file order */
	size_t nspans;
	uint64_t events;		       /* events in them */
	uint64_t lost;			       /* what their loss markers add up to */
	uint64_t cpu_lost[TTRACE_MAX_CPUS];    /* the same, per CPU */
	uint64_t cpu_events[TTRACE_MAX_CPUS];  /* events per CPU */
	uint64_t cpu_entries[TTRACE_MAX_CPUS]; /* their entries: heads and continuations */
	uint64_t first_ts, last_ts;	       /* of the events; 0 when none */

	const uint8_t *durable; /* AUX_DURABLE's bytes: aux positions [0, durable_size) */
	uint64_t durable_size;
	const uint8_t *ring; /* AUX_RING's bytes: aux positions [aux_first, aux_last) */
	uint64_t aux_first, aux_last;
	uint64_t aux_span; /* a power of two >= aux_ring_size and aux_last - aux_first */

	/* A recording's: its chunks, their aux pieces joined, and where it ends early. */
	uint64_t chunks;
	uint8_t *ring_own; /* the joined pieces (ring points here) */
	struct ttrace_file_chunk_cpu chunk_cpu[TTRACE_MAX_CPUS]; /* the last chunk's counts */
	uint64_t chunk_ns;   /* the last chunk's ns: later chunks' events are from after it */
	uint64_t resumed;    /* chunks with TTRACE_CHUNK_F_RESUMED: restarts of traced */
	uint64_t parsed;     /* bytes up to the end of the last whole chunk read */
	uint64_t parsed_sum; /* the checksum of those bytes */
	bool cut;	     /* the refusal was that the file ends inside a section */
	bool ends_early;
	char note[TFILE_WHY_MAX]; /* when ends_early: where and why */

	struct ttrace_file_ledger ledger[TTRACE_MAX_CPUS];
	struct ttrace_file_end end;
};

#endif
