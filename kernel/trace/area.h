/*
 * area: the kernel's one trace area, which the files of kernel/trace that
 * set tracing up (ktrace.c), emit on the slow path (emit.c), write names
 * into the aux ring (aux_names.c) and read the rings at a panic
 * (flight.c) all use; defined below them all (area.c), so that none of
 * them owns it. Private to kernel/trace.
 */
#ifndef SPOOR_TRACE_AREA_H
#define SPOOR_TRACE_AREA_H

#include <stdint.h>

#include "arch/x86_64/percpu.h"
#include "common/trace_ring.h"
#include "trace/area_init.h"

/* [I] after ttrace_init(); without an area (tracing off), hdr is NULL. */
extern struct ttrace_area area;

/*
 * The ring of the CPU whose id is i, or NULL when no CPU came online in
 * that slot (smp.c zeroes a slot whose CPU did not start, and the next
 * CPU to take it wires its own ring as it comes online).
 */
static inline struct ttrace_ring *ring_of(uint32_t i)
{
	/* acquire: pairs with the release store in ttrace_cpu_online() */
	return __atomic_load_n(&cpus[i].trace_ring.hdr, __ATOMIC_ACQUIRE) ? &cpus[i].trace_ring
									  : NULL;
}

#endif
