/*
 * trace_aux: the aux buffer of abi/trace.h, the strings events refer to
 * (syscall and kind names, process and thread names, user-event
 * definitions, free text), on memory the caller maps (struct ttrace_area).
 * The writer follows steps AW1-AW3 of abi/trace.h, the readers A1-A3;
 * this file and trace.h must change together.
 *
 * Writers: callers serialise every ttrace_aux_write*() call with one lock
 * of their own (the kernel's aux spinlock, taken with interrupts disabled
 * if an interrupt handler ever writes). The writer never blocks and never
 * allocates. Records in the durable part are never overwritten; the ring
 * overwrites its oldest records when it needs room.
 *
 * Readers: lock-free, never write the area. A reference (a record's
 * position) that outlived its record is reported as evicted, never
 * answered with another record's bytes.
 */
#ifndef SPOOR_COMMON_TRACE_AUX_H
#define SPOOR_COMMON_TRACE_AUX_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
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

/* Records to walk with ttrace_aux_next(): a consistent copy, or the durable part in place. */
struct ttrace_aux_view {
	const uint64_t *words; /* words[0] holds position start */
	uint64_t start;
	uint64_t next; /* the next record's position */
	uint64_t end;
};

/* A view of the durable records (A1); they never change, so no copy is needed. */
void ttrace_aux_durable(const struct ttrace_area *a, struct ttrace_aux_view *v);

/*
 * Copies the aux ring's records into buf (A2) and sets *v to walk the
 * intact ones. buf must hold aux_ring_size bytes. Returns 0, -ENOSPC for
 * a smaller buf, or -EAGAIN if the writer kept evicting the whole window
 * while it was copied.
 */
int ttrace_aux_snapshot(const struct ttrace_area *a, uint64_t *buf, size_t buf_size,
			struct ttrace_aux_view *v);

/*
 * Takes the next record off v: its header into *rec and its string (rec->len
 * bytes, no NUL) into *str, pointing into v's words. Returns 1, 0 at the
 * end, or -EINVAL for bytes that are not a record (nothing after them is
 * returned).
 */
int ttrace_aux_next(struct ttrace_aux_view *v, struct ttrace_aux_record *rec, const char **str);

/*
 * Looks up the record at reference ref (A3): its header into *rec and its
 * string into str, NUL-terminated and cut to size - 1 bytes (size > 0).
 * Returns the string's full length, -ENOENT if the record was evicted, or
 * -EINVAL if ref is not a record's position; str is then "".
 */
int ttrace_aux_lookup(const struct ttrace_area *a, uint64_t ref, struct ttrace_aux_record *rec,
		      char *str, size_t size);

#endif
