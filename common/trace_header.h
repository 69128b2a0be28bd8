/*
 * trace_header: the trace area as one program holds it. The kernel lays
 * the area out (ttrace_header_init) and prepares it (ttrace_area_init);
 * a reader checks what it mapped before it trusts a byte of it
 * (ttrace_area_check), and exits with the message it gets. The ring and
 * aux code (trace_ring.h, trace_aux.h) work on a struct ttrace_area.
 *
 * Nothing here allocates: the memory is the caller's, the kernel's pages
 * or a reader's mappings or a test's buffers.
 */
#ifndef SPOOR_COMMON_TRACE_HEADER_H
#define SPOOR_COMMON_TRACE_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"

/* Where the regions of abi/trace.h are in this program, and the bytes it holds of each. */
struct ttrace_area {
	struct ttrace_header *hdr;
	struct ttrace_reader *reader; /* NULL: not mapped, no drop-mode tail */
	union ttrace_slot *rings;     /* CPU 0's ring; the others follow, ring_bytes apart */
	uint64_t *aux;		      /* the durable part, then the aux ring */
	uint64_t hdr_len;
	uint64_t reader_len;
	uint64_t rings_len;
	uint64_t aux_len;
};

/* What the kernel chooses (command line, CPU count, calibration). */
struct ttrace_geometry {
	uint32_t num_cpus;	   /* 1..TTRACE_MAX_CPUS */
	uint32_t ring_entries;	   /* a power of two >= TTRACE_RING_ENTRIES_MIN */
	uint64_t aux_durable_size; /* a multiple of 8: ttrace_aux_names_size() at least */
	uint64_t aux_ring_size;	   /* a power of two >= TTRACE_AUX_RING_MIN */
	uint64_t tsc_hz;
	uint64_t boot_tsc;
};

/*
 * Fills *h for geometry g: versions, geometry, region offsets and sizes
 * (header, reader page, rings, aux, in that order, each page aligned),
 * mask 0, overwrite mode, every counter 0. The caller then gives each
 * region the bytes the header asks for. Returns 0, or -EINVAL for a
 * geometry outside the limits above (h is then untouched).
 */
int ttrace_header_init(struct ttrace_header *h, const struct ttrace_geometry *g);

/*
 * Prepares the regions of an area whose header ttrace_header_init()
 * filled: marks every ring slot never written, zeroes the reader page and
 * empties the aux buffer. Returns 0, or -EINVAL if ttrace_area_check()
 * refuses the area. Call it before any writer or reader uses the area.
 */
int ttrace_area_init(const struct ttrace_area *a);

/*
 * Checks that a reader can use area a: the magic, the major version, a
 * minor version not older than this reader's, the layout versions, a
 * geometry within the limits, regions that neither overlap nor leave the
 * area, and mappings at least as long as the regions (the reader page may
 * be unmapped: reader NULL). Returns 0, or -EINVAL with one line saying
 * what is wrong in why (NUL-terminated when why_size > 0).
 */
int ttrace_area_check(const struct ttrace_area *a, char *why, size_t why_size);

#endif
