/*
 * trace_header: the trace area as one program holds it. A reader checks
 * what it mapped before it trusts a byte of it (ttrace_area_check), and
 * exits with the message it gets. The ring and aux code (trace_ring.h,
 * trace_aux.h) work on a struct ttrace_area. Laying the area out and
 * preparing it is the kernel's alone: kernel/trace/area_init.h.
 *
 * Nothing here allocates: the memory is the caller's, the kernel's pages
 * or a reader's mappings or a test's buffers.
 */
#ifndef SPOOR_COMMON_TRACE_HEADER_H
#define SPOOR_COMMON_TRACE_HEADER_H

#include <stdbool.h>
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

/* Limits of a geometry, beyond abi/trace.h's minimums: what the checks below accept. */
#define TTRACE_RING_ENTRIES_MAX (1u << 26)   /* 4 GiB of ring a CPU: far beyond any machine here */
#define TTRACE_AUX_BYTES_MAX	(1ull << 32) /* of the durable part, and of the aux ring */

/* True if v is a power of two (ring entries and aux ring sizes must be). */
static inline bool ttrace_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

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
