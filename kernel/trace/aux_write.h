/*
 * aux_write: the writer of the aux buffer of abi/trace.h (steps AW1-AW3)
 * and the boot names of its durable part, on an area of
 * common/trace_header.h; the readers they race with are
 * common/trace_aux.h. Only the kernel writes the aux buffer, so this half
 * lives here; the host tests compile it too (KERNEL_PURE in the
 * Makefile). This file, common/trace_aux.c and trace.h must change
 * together.
 *
 * Writers: callers serialise every ttrace_aux_write*() call with one lock
 * of their own (the kernel's aux spinlock, taken with interrupts disabled
 * if an interrupt handler ever writes). The writer never blocks and never
 * allocates. Records in the durable part are never overwritten; the ring
 * overwrites its oldest records when it needs room.
 */
#ifndef SPOOR_TRACE_AUX_WRITE_H
#define SPOOR_TRACE_AUX_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_aux.h"
#include "common/trace_header.h"

/* A record to write. */
struct ttrace_aux_item {
	uint64_t id;	 /* see the TTRACE_AUX_* tags */
	uint64_t ts;	 /* TSC */
	const char *str; /* len bytes, NUL not needed */
	uint32_t len;	 /* at most TTRACE_AUX_LEN_MAX */
	uint16_t tag;	 /* TTRACE_AUX_* */
	uint8_t cpu;
};

/*
 * Appends a record to the aux ring, evicting the oldest records it needs
 * room for, and sets *ref to its position. Returns 0, or -EINVAL for a
 * tag of 0 or a string longer than TTRACE_AUX_LEN_MAX.
 */
int ttrace_aux_write(const struct ttrace_area *a, const struct ttrace_aux_item *it, uint64_t *ref);

/*
 * Records that must outlive their eviction (program names a dump still
 * needs): keep() is asked about the oldest record before AW1 evicts it;
 * when it says yes the record is moved to the ring's end, under a new
 * position that moved() is told. Only records of at most
 * TTRACE_AUX_KEEP_LEN_MAX string bytes are asked about, and one write moves
 * at most one ring's worth: past that, the oldest records are evicted
 * whatever keep() would say, so a ring full of kept records still takes
 * new ones. Both run under the writer's lock.
 */
#define TTRACE_AUX_KEEP_LEN_MAX 64

struct ttrace_aux_keeper {
	bool (*keep)(void *ctx, uint64_t pos, uint16_t tag);
	void (*moved)(void *ctx, uint64_t from, uint64_t to);
	void *ctx;
};

/* As ttrace_aux_write(), moving instead of evicting what k keeps (k may be NULL). */
int ttrace_aux_write_keeping(const struct ttrace_area *a, const struct ttrace_aux_item *it,
			     const struct ttrace_aux_keeper *k, uint64_t *ref);

/*
 * Appends a record to the durable part and sets *ref to its position.
 * Returns 0, -EINVAL as ttrace_aux_write(), or -ENOSPC if the durable part
 * has no room left for it.
 */
int ttrace_aux_write_durable(const struct ttrace_area *a, const struct ttrace_aux_item *it,
			     uint64_t *ref);

/* Bytes the records of ttrace_aux_write_names() take: the least aux_durable_size. */
uint64_t ttrace_aux_names_size(void);

/*
 * Writes a durable record for every syscall of abi/syscalls.def (its
 * name) and every kind of abi/trace_kinds.def ("name category args"), at
 * boot, stamped ts. Returns 0, or -ENOSPC as ttrace_aux_write_durable().
 */
int ttrace_aux_write_names(const struct ttrace_area *a, uint64_t ts);

#endif
