/*
 * file: a saved trace (abi/trace_file.h) read into memory and checked
 * before any of it is trusted. tfile_parse() walks the whole file once:
 * the header's versions and geometry, every section's size and place in
 * the order, every event's slots, the aux records, the ledger and the END
 * totals and checksum. What it accepts, the converters can walk without
 * another check: tfile_next() cannot fail on a parsed file.
 *
 * A recording (abi/trace_file.h, A RECORDING) is read chunk by chunk,
 * each checked by its checksum and running counts; one that ends at a
 * chunk boundary without its LEDGER and END (still being written, or
 * the machine stopped) reads up to its last chunk, with ends_early set
 * and a note saying where it ends. A chunk cut or corrupted is refused.
 *
 * A refusal is one line saying what is wrong and at which byte of the
 * file, "byte 4136: an EVENTS section of 70 bytes is not whole 64-byte
 * slots"; the caller puts the program and file name in front. Decoding
 * the events (names, strings, user events) is view.h's.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FILE_H
#define SPOOR_TOOLS_SPOOR_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/trace_ring.h"
#include "tools/spoor-trace/tfile.h"

/*
 * Checks the size bytes at data as a saved trace and fills *f to walk it
 * (data must stay until tfile_free()). Returns 0, -EINVAL with the
 * refusal in why ("byte N: ...", NUL-terminated, cut to why_size), or
 * -ENOMEM.
 */
int tfile_parse(const uint8_t *data, size_t size, struct tfile *f, char *why, size_t why_size);

/*
 * A recording read as it grows (follow): goes on from the end of the last
 * whole chunk f holds (a zeroed f: from the start), over the size bytes
 * at data: the bytes f read, unchanged, then what was appended (data may
 * have moved; f points into it from now on). Returns 0, having read every
 * whole chunk (ends_early as tfile_parse() sets it); -EAGAIN when the
 * file ends inside its header or a section, which the writer has not
 * finished (f holds the chunks before it, ends_early set); or -EINVAL and
 * -ENOMEM as tfile_parse(), after which f is only for tfile_free().
 */
int tfile_parse_more(struct tfile *f, const uint8_t *data, size_t size, char *why, size_t why_size);

/* Reads the whole file at path into *data (malloc'd). Returns 0 or -errno. */
int tfile_read(const char *path, uint8_t **data, size_t *size);

/* Frees what tfile_parse() allocated; f's data stays the caller's. */
void tfile_free(struct tfile *f);

/* What the EVENTS sections hold, in order: an event, or a loss marker. */
struct tfile_item {
	uint64_t offset; /* of its head slot in the file */
	bool lost;	 /* a marker: lost_count entries were lost on lost_cpu */
	uint32_t lost_cpu;
	uint64_t lost_count;
	struct ttrace_record rec; /* an event: as a ring reader returns it */
};

struct tfile_iter {
	const struct tfile *f;
	size_t span;
	uint64_t at; /* bytes into spans[span] */
	/* Per-CPU spans (minor 3): each CPU's place, merged by timestamp as the walk goes. */
	size_t cpu_span[TTRACE_MAX_CPUS];
	uint64_t cpu_at[TTRACE_MAX_CPUS];
	uint64_t until_ts; /* per-CPU spans: events from this ts on wait (0: none; the caller's) */
};

/*
 * Starts a walk over f's events and markers, oldest first: per-CPU spans
 * merged by timestamp (ties by CPU), each CPU's order kept and a marker
 * as soon as it leads its CPU's stream (abi/trace_file.h, LOSS PLACEMENT).
 */
void tfile_iter_start(struct tfile_iter *it, const struct tfile *f);

/* Takes the next item into *item: true, or false at the end (or at until_ts). */
bool tfile_next(struct tfile_iter *it, struct tfile_item *item);

/*
 * For a walk of a recording that ends early, per CPU (minor 3): the TSC
 * from which its events must wait for the chunks still to come, which
 * may hold other CPUs' events before them (abi/trace_file.h, PER-CPU
 * CHUNKS: a chunk's events are from before its ns, and a later chunk's
 * from after it); 0 (none) for a whole file, or one without the TSC's
 * rate. A follower sets until_ts to it, so that it prints the CPUs'
 * events in the order the whole file will have.
 */
uint64_t tfile_settled_ts(const struct tfile *f);

#endif
