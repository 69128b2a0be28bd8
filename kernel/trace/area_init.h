/*
 * area_init: the kernel lays out a trace area (ttrace_header_init) and
 * prepares it (ttrace_area_init) before any writer or reader uses it;
 * readers check what they map with ttrace_area_check() of
 * common/trace_header.h. Only the kernel makes areas, so this half lives
 * here; the host tests compile it too (KERNEL_PURE in the Makefile).
 *
 * Nothing here allocates: the memory is the caller's, the kernel's pages
 * or a test's buffers.
 */
#ifndef SPOOR_TRACE_AREA_INIT_H
#define SPOOR_TRACE_AREA_INIT_H

#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_header.h"

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
 * geometry outside the limits above or the TTRACE_*_MAX ones of
 * common/trace_header.h (h is then untouched).
 */
int ttrace_header_init(struct ttrace_header *h, const struct ttrace_geometry *g);

/*
 * Puts the header h that ttrace_header_init() filled at base, and sets *a
 * to the area that starts there, each region where h says. base has
 * h->area_size bytes.
 */
void ttrace_area_place(struct ttrace_area *a, void *base, const struct ttrace_header *h);

/*
 * Prepares the regions of an area whose header ttrace_header_init()
 * filled: marks every ring slot never written, zeroes the reader page and
 * empties the aux buffer. Returns 0, or -EINVAL if ttrace_area_check()
 * refuses the area. Call it before any writer or reader uses the area.
 */
int ttrace_area_init(const struct ttrace_area *a);

#endif
