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

#include "abi/trace_file.h"
#include "common/trace_ring.h"

/*
 * The largest aux part this reader accepts, each of the durable part and
 * the ring: the kernel's largest ttrace.aux_kb. A view holds both in
 * memory, so a corrupt size must not make it allocate gigabytes.
 */
#define TFILE_AUX_MAX (64ull << 20)

/* The longest refusal, "byte N: ..." */
#define TFILE_WHY_MAX 256

/* One EVENTS section's slots. */
struct tfile_span {
	uint64_t offset; /* of its first slot in the file */
	uint64_t size;	 /* bytes, whole slots */
};

struct tfile {
	const uint8_t *data; /* the whole file; the caller's, kept while this is used */
	size_t size;
	struct ttrace_file_header hdr; /* the fields this reader knows */

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
	uint64_t resumed; /* chunks with TTRACE_CHUNK_F_RESUMED: restarts of traced */
	bool ends_early;
	char note[TFILE_WHY_MAX]; /* when ends_early: where and why */
	uint64_t parsed;	  /* bytes up to the end of the last whole chunk read */
	uint64_t parsed_sum;	  /* the checksum of those bytes */
	bool cut;		  /* the refusal was that the file ends inside a section */

	struct ttrace_file_ledger ledger[TTRACE_MAX_CPUS];
	struct ttrace_file_end end;
};

/*
 * Checks the size bytes at data as a saved trace and fills *f to walk it
 * (data must stay until tfile_free()). Returns 0, -EINVAL with the
 * refusal in why ("byte N: ...", NUL-terminated, cut to why_size), or
 * -ENOMEM.
 */
int tfile_parse(const uint8_t *data, size_t size, struct tfile *f, char *why, size_t why_size);

/*
 * A recording read as it grows (follow): goes on from the end of the last
 * whole chunk f holds (tfile_parse() or this made it), over the size
 * bytes at data: the bytes f read, unchanged, then what was appended
 * (data may have moved; f points into it from now on). Returns 0, having
 * read every whole chunk (ends_early as tfile_parse() sets it); -EAGAIN
 * when the file ends inside a section, which the writer has not finished
 * (f as it was); or -EINVAL and -ENOMEM as tfile_parse(), after which f
 * is only for tfile_free().
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
};

/* Starts a walk over f's events and markers, oldest first. */
void tfile_iter_start(struct tfile_iter *it, const struct tfile *f);

/* Takes the next item into *item: true, or false at the end. */
bool tfile_next(struct tfile_iter *it, struct tfile_item *item);

/* The name of section type t ("EVENTS"), or "unknown". */
const char *tfile_section_name(uint32_t t);

#endif
