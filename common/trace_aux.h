/*
 * trace_aux: the aux buffer of abi/trace.h, the strings events refer to
 * (syscall and kind names, process and thread names, user-event
 * definitions, free text), on memory the caller maps (struct ttrace_area):
 * the readers, steps A1-A3 of abi/trace.h. The writer (AW1-AW3) and the
 * boot names live with the kernel, their only user:
 * kernel/trace/aux_write.h. This file, aux_write.c and trace.h must
 * change together.
 *
 * Readers: lock-free, never write the area. A reference (a record's
 * position) that outlived its record is reported as evicted, never
 * answered with another record's bytes.
 */
#ifndef SPOOR_COMMON_TRACE_AUX_H
#define SPOOR_COMMON_TRACE_AUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_header.h"

/* The 64-bit words of a record's header (struct ttrace_aux_record). */
#define TTRACE_AUX_HDR_WORDS (sizeof(struct ttrace_aux_record) / 8)

/* The word holding position pos (8-byte aligned) of area a's aux region. */
static inline uint64_t *ttrace_aux_word(const struct ttrace_area *a, uint64_t pos)
{
	const struct ttrace_header *h = a->hdr;
	uint64_t d = h->aux_durable_size;

	return &a->aux[(pos < d ? pos : d + ((pos - d) & h->aux_mask)) / 8];
}

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

/*
 * Walks the aux ring in place, oldest record first, up to the newest as
 * the walk began: calls fn(ctx, &header, position) for each record, with
 * its header only (ttrace_aux_lookup() at the position gets the string),
 * until fn returns false. Records evicted during the walk are skipped (it
 * goes on from the oldest one left). Returns 0, or -EINVAL at bytes that
 * are not a record, where it stops. Lock-free: A3 for every record.
 */
int ttrace_aux_walk(const struct ttrace_area *a,
		    bool (*fn)(void *ctx, const struct ttrace_aux_record *rec, uint64_t pos),
		    void *ctx);

#endif
