/*
 * A saved trace: the file `trace save` writes to the host
 * (build/traces/NAME.spoor) and tools/spoor-trace reads. It holds what a
 * reader needs to decode the saved events exactly as `trace dump` prints
 * them, with nothing else of the machine: the trace header's fields, the
 * events as their raw ring slots (abi/trace.h), the aux records they refer
 * to, and each CPU's ledger with the losses the save saw, so that loss
 * survives export. A reader written only from this file and abi/trace.h
 * must work. Everything is little-endian.
 *
 * LAYOUT. A header, then sections, each a struct ttrace_file_section and
 * size bytes of payload (size a multiple of 8, so every section starts
 * 8-byte aligned), in this order:
 *
 *   struct ttrace_file_header
 *   PREDICATE      at most one (minor 5): see A SAVE'S PREDICATE
 *   EVENTS ...     any number, together the selected events in order
 *                  (from minor 4, CPU_EVENTS instead, but for count= and
 *                  last=: PER-CPU SAVES)
 *   AUX_DURABLE    exactly one
 *   AUX_RING       exactly one
 *   LEDGER         exactly one
 *   END            exactly one, the last bytes of the file
 *
 * EVENTS: whole 64-byte slots, as a binary dump carries them (abi/traced.h
 * DATA): each event is its head entry (struct ttrace_entry) followed by
 * its TTRACE_NCONT_OF(ctx) continuations, and a loss is a marker slot of
 * kind TRACED_KIND_LOST with ts 0, cpu C and data[0] = the entries lost
 * on CPU C at that point of the stream. Events are in timestamp order
 * across CPUs, each CPU's own order exact. An event never spans sections.
 *
 * LOSS PLACEMENT. A marker says entries were lost on its CPU between the
 * events of that CPU before and after it; it carries no time. Every
 * reader places a loss by one rule: at the first event its CPU kept after
 * it; when that CPU kept none after it, at the CPU's last event; when the
 * CPU kept none at all, at the first event of the file. spoor-trace's
 * text prints the marker's line after the CPU's events before the loss
 * and before that event's line (other CPUs' lines may come between), its CTF
 * ends the discarded events' span there, and its Trace Event JSON puts
 * the "lost N events" instant there on the CPU's track.
 *
 * AUX_DURABLE: the bytes of the aux buffer's durable part, positions
 * [0, size): its records (syscall and kind names), as abi/trace.h's THE
 * AUX BUFFER lays them out. size <= aux_durable_size.
 *
 * AUX_RING: struct ttrace_file_aux_ring, then the bytes of aux positions
 * [first, last) in position order (the ring's wrap undone): a consistent
 * copy of the ring's records (A2), from first, which starts a record.
 * Events refer to records by position; a reference below first was
 * evicted before the save and prints as <evicted>. A save of a SELF
 * caller (abi/traced.h, SAVE) carries only the records its events refer
 * to: its processes' names, its threads', its user events' definitions
 * and what string arguments point at; every other record is blank, in
 * its place and of its length: tag TEXT, id, ts and cpu 0, its bytes
 * zero. A reader needs nothing new for it.
 *
 * LEDGER: num_cpus struct ttrace_file_ledger, CPU 0 first, taken when the
 * events were all read: the ring's counters (abi/trace.h ACCOUNTING) and
 * the entries this save found lost on that CPU (the sum of its markers).
 *
 * END: struct ttrace_file_end: the totals of the EVENTS sections and the
 * checksum of every byte of the file before the END section's own head.
 *
 * THE EXPORT CHANNEL carries a file from traced to the host: the second
 * serial port (COM2) for short control lines both ways, and the export
 * window (an ivshmem device's memory, a file on the host) for the file's
 * bytes, through a ring of records in it (THE EXPORT WINDOW, below) that
 * the host reads in place. The guest sends one line and waits for the
 * host's answer line, "ok" or "error TEXT", before the next. Before it
 * answers any line the host takes every record published: into the file
 * in progress, or with none, discarding it. The lines:
 *   begin NAME [replace]  a new file NAME.spoor (1 to
 *                         TTRACE_EXPORT_NAME_MAX - 1 bytes of the
 *                         characters abi/traced.h's SAVE takes, not
 *                         starting with '.'); any file in progress is
 *                         dropped. Without "replace" the file never
 *                         takes the place of one already there: the host
 *                         refuses at begin and again, atomically, at end
 *                         (RENAME_NOREPLACE). traced says "replace" for
 *                         CONTROL's saves only. With it, the host still
 *                         replaces only a file this run of it made.
 *   record NAME [replace] a recording (minor 1): as begin, but the host
 *                         writes NAME.spoor itself as the data arrives,
 *                         one whole chunk a record, so that it reads
 *                         at any time as the recording so far; dropped,
 *                         it stays as it is (cut after a whole chunk)
 *   resume NAME BYTES     a restarted traced goes on with recording NAME:
 *                         the host appends to NAME.spoor from now on if
 *                         this run of it recorded it and it is BYTES
 *                         long (the records the killed traced published
 *                         already in it), else refuses ("error not a
 *                         recording of this run", "error size: ...": only
 *                         its own file's size is told). traced keeps what
 *                         it needs for this in the window past the ring
 *                         while it records.
 *   end BYTES CHECKSUM    the file is whole: BYTES long, its checksum is
 *                         CHECKSUM (16 lower-case hex digits); the host
 *                         checks both, then the file appears under its
 *                         name (never a partial one)
 *   end BYTES             a recording's end (channel version 2): the
 *                         host checks the length; the checksums are its
 *                         own (HOST CHECKSUMS)
 * (Channel version 0, before the window's ring, sent each window's worth
 * with a line "data LEN"; the host no longer takes it.)
 * Lines end in '\n' and are at most TTRACE_EXPORT_LINE_MAX bytes with it.
 * Two refusals start with a word the guest acts on: "error exists: ..."
 * (a file of that name is there and the begin did not say replace:
 * SAVE answers -EEXIST) and "error limit: ..." (the host's limit of files
 * or bytes for this run is reached: -ENOSPC); any other is -EIO. The host
 * may bound what one run keeps (tools/spoor-receive: --max-files,
 * --max-bytes); the file that would pass a bound is refused whole.
 *
 * THE EXPORT WINDOW (channel version 1; 2 from HOST CHECKSUMS on). Its first TTRACE_EXPORT_CTL_SIZE
 * bytes are struct ttrace_export_ctl; the ring, ring_size bytes, follows
 * at ring_offset; the window's bytes past the ring are traced's own
 * (the host never reads them). A single-producer, single-consumer ring
 * as perf's mmap ring: head and tail count bytes ever published and ever
 * taken, each on a cache line of its own; the guest alone writes head,
 * the host alone tail. A record is struct ttrace_export_rec, then len
 * bytes of the file, padded to TTRACE_EXPORT_ALIGN; it starts at ring
 * offset pos % ring_size and never wraps: when it does not fit before the
 * ring's end, a PAD record fills the rest and it starts at the ring's
 * start. The guest publishes by
 *   E1. waiting until head + the record's room - tail <= ring_size
 *       (acquire load of tail: the host is done with those bytes);
 *   E2. writing the record's bytes, then its head (with pos = head);
 *   E3. a release store of head past it (pairs with the host's E4).
 * The host takes by
 *   E4. an acquire load of head, checked: a multiple of ALIGN, at most
 *       ring_size past its own tail (it keeps tail itself and trusts
 *       the window's copy of it never);
 *   E5. for each record at its tail: a copy of its head, checked (magic,
 *       pos = tail, len a multiple of 8 that fits before both head and
 *       the ring's end), its bytes written out as they lie in the window;
 *   E6. a release store of tail past it (pairs with E1).
 * A window that fails a check gets one line on the host's stderr; the
 * file in progress is dropped and the guest told through refused, and
 * the host's tail jumps to head at the next line. A guest that changes a
 * save's record while the host writes it out changes only its own file,
 * whose checksum then fails; a recording's record the host copies first
 * (HOST CHECKSUMS). traced (re)writes the ctl's geometry when it finds
 * it not its own (then head = tail = 0), and otherwise keeps head, so a
 * restarted traced goes on where the killed one stopped.
 *
 * A RECORDING (minor 1, `trace record`, flags TTRACE_FILE_F_RECORDING)
 * is the same header, then sections in this order:
 *
 *   CHUNK ...      any number, sent to the host as they fill
 *   LEDGER         exactly one  } written when the recording stops; a
 *   END            exactly one  } file without them ends early
 *
 * A CHUNK's payload is struct ttrace_file_chunk, num_cpus struct
 * ttrace_file_chunk_cpu (CPU 0 first), sections as above (AUX_DURABLE in
 * the first chunk only; AUX_RING pieces with the aux records new since
 * the last chunk; EVENTS, or from minor 3 CPU_EVENTS), and last a
 * uint64_t checksum: the checksum of
 * every byte of the file before it (CHECKSUMS; the host writes it, HOST
 * CHECKSUMS). A chunk is whole when its size fits
 * the file and its checksum holds, so a file cut anywhere reads up to its
 * last whole chunk and a reader says where and that it ends early. Aux
 * records go out in the chunk before or with the first event that names
 * them: a recording keeps every name its events use (the AUX_RING pieces
 * of all chunks, in position order, make one ring copy that may be
 * longer than aux_ring_size; a piece starting after the last one's end
 * means the records between were evicted before traced could send them).
 * The running counts of each chunk let a reader prove, after every
 * chunk, that each CPU's entries recorded + lost = next - first: every
 * entry the recorder passed is in the file or counted lost (with a
 * filter, entries it skipped make up the rest). LEDGER's lost is then the
 * last chunk's, and its emitted the next it stopped at. A chunk with
 * CHUNK_F_RESUMED is the first after traced restarted: the recorder went
 * on from the last chunk's next, and what the rings overwrote meanwhile
 * is counted lost there, with markers.
 *
 * PER-CPU CHUNKS (minor 3). A recording carries each CPU's entries as
 * the ring held them, in CPU_EVENTS sections: struct
 * ttrace_file_cpu_events, then whole slots of that CPU alone (events and
 * loss markers, as EVENTS has them) in ring order, a range traced copied
 * at once and checked against the ring's head once, not merged. With a
 * filter, the range holds only the events it passes (its loss markers
 * all stay), the others moved out in place after the copy; the layout
 * is the same, so no minor marks it: the chunk's counts then have
 * entries + lost <= next - first. Only a filter with count=, which
 * selects by position in the merged stream, makes EVENTS instead. Within a
 * chunk they may come before the AUX_RING piece (the piece is snapshot
 * after the copy, so it holds every name they use); readers take a chunk
 * whole. Readers merge the CPUs' streams by timestamp, each CPU's order
 * kept, placing each loss marker by the rule of LOSS PLACEMENT (at the
 * latest before the next event of its CPU); babeltrace2 merges the CTF
 * streams itself. A file holds EVENTS or CPU_EVENTS, never both. A
 * chunk's ns is taken before its events are copied, so a later chunk's
 * events are from after it (but for a write held up across the copy): a
 * reader of a file still growing (spoor-trace follow) merges only the
 * events before the last chunk's ns, the rest once more chunks arrive.
 *
 * PER-CPU SAVES (minor 4). A save carries its events as a recording
 * does: in CPU_EVENTS sections where EVENTS would be, each CPU's entries
 * from its last clear to its head when the save began, ranges copied at
 * once and checked against the head once, not merged; each CPU's
 * sections in its ring order, the CPUs one after another (CPU 0 first).
 * A save with a filter, or a SELF caller's, holds the events it selects
 * and every loss marker, as a filtered recording's chunks do (minor 4's
 * layout, unchanged). Readers merge them as above. Only a save with
 * count= or last= (positions in the merged stream) still holds EVENTS.
 *
 * CHECKSUMS. The file's checksums (END's, each CHUNK's, the export
 * channel's end line) run over the file's bytes from its first: from minor
 * 2 on word-wise, over its little-endian 64-bit words (every section is
 * whole words), h = (h ^ word) * TTRACE_FNV_PRIME from TTRACE_FNV_OFFSET,
 * two instructions a word where the byte-wise hash of minors 0 and 1
 * (FNV-1a 64, the same with each byte for a word) takes sixteen; a reader
 * checks an older file the older way. Each step is a bijection of h, so
 * any one word changed changes the sum; lengths are checked apart.
 *
 * HOST CHECKSUMS (channel version 2). The host computes a recording's
 * checksums, not traced: each CHUNK's last word and END's checksum
 * arrive as zero, and the host, which takes each record whole, copies it
 * out of the window, walks its sections (the file header first in the
 * first record; every size checked against the record, a bad one drops
 * the file with one line), writes each of those words as the checksum of
 * the file before it, and appends the copy. The file is byte for byte
 * the one traced would write had it summed the words itself, so readers
 * see no change and no minor marks it. Why: under emulation the guest's
 * instructions are the scarce ones, and the sum over every word was a
 * third of traced's drain (17.5 instructions a slot of 39.7 an event,
 * more than the copy's 8), while the host sums natively as it writes.
 * What the sum guards is the file at rest (cut, changed, a chunk half
 * written when read); the window's own checks (sizes, offsets, the
 * sequence word of each record) guard the way there. Saves keep their
 * guest-side sums and end lines with a checksum.
 *
 * A SAVE'S PREDICATE (minor 5). A save asked with `if PREDICATE`
 * (abi/traced.h, struct traced_pred) holds the events that pass it and
 * the header's filter, so its file says so: a PREDICATE section, first
 * after the header, is struct ttrace_file_predicate, then the text as
 * the request carried it, len bytes (1 to TTRACE_PRED_TEXT_MAX, no NUL),
 * then zeros to a multiple of 8. The text compiles for the header's
 * filter (common/trace_filter_pred.h) as it did in traced; a quoted
 * string in it may hold any other byte, which readers show as '?'. A
 * file without one was saved without a predicate (or before minor 5).
 * A recording has none: RECORD takes no predicate. An older reader skips
 * the section, and then shows the selection without the predicate.
 *
 * VERSIONS. A reader refuses a file whose magic is not TTRACE_FILE_MAGIC
 * or whose version_major is not its own, and reads every older minor. A newer minor may append
 * fields to the header (header_size grows) and add section types, which a reader skips; an older
 * reader then still reads the file. Numbers here are append-only.
 */
#ifndef SPOOR_ABI_TRACE_FILE_H
#define SPOOR_ABI_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "abi/traced.h"

#define TTRACE_FILE_MAGIC	  0x46545053u /* "SPTF" */
#define TTRACE_FILE_VERSION_MAJOR 1
#define TTRACE_FILE_VERSION_MINOR 5
#define TTRACE_FILE_SUFFIX	  ".spoor"

struct ttrace_file_header {
	uint32_t magic;		/* TTRACE_FILE_MAGIC */
	uint16_t version_major; /* TTRACE_FILE_VERSION_MAJOR */
	uint16_t version_minor; /* TTRACE_FILE_VERSION_MINOR */
	uint32_t header_size;	/* sizeof(struct ttrace_file_header) of the writer */
	uint32_t num_cpus;	/* 1..TTRACE_MAX_CPUS: markers and events name CPUs below it */

	/* From the trace header (abi/trace.h) the events were saved from. */
	uint64_t tsc_hz;	      /* TSC ticks a second; 0 if unknown */
	uint64_t boot_tsc;	      /* the TSC at boot: time 0 */
	uint64_t aux_durable_size;    /* aux positions below it are durable */
	uint64_t aux_ring_size;	      /* a power of two */
	uint64_t mask;		      /* the categories enabled when saved */
	uint32_t mode;		      /* TTRACE_MODE_* when saved */
	uint32_t ring_entries;	      /* slots per CPU ring */
	uint16_t trace_version_major; /* the trace header's version */
	uint16_t trace_version_minor; /* */
	uint32_t entry_size;	      /* TTRACE_ENTRY_SIZE */
	uint64_t saved_ns;	      /* ns since boot when the save began */
	struct traced_filter filter;  /* what was selected (abi/traced.h) */
	uint64_t flags;		      /* TTRACE_FILE_F_* (minor 1; zero before) */
	uint64_t reserved[3];	      /* zero */
};

#define TTRACE_FILE_F_RECORDING (1ull << 0) /* CHUNKs, LEDGER, END: see A RECORDING */

_Static_assert(sizeof(struct ttrace_file_header) == 80 + 80 + 32, "abi");
_Static_assert(offsetof(struct ttrace_file_header, magic) == 0, "abi");
_Static_assert(offsetof(struct ttrace_file_header, version_major) == 4, "abi");
_Static_assert(offsetof(struct ttrace_file_header, version_minor) == 6, "abi");
_Static_assert(offsetof(struct ttrace_file_header, header_size) == 8, "abi");
_Static_assert(offsetof(struct ttrace_file_header, num_cpus) == 12, "abi");
_Static_assert(offsetof(struct ttrace_file_header, tsc_hz) == 16, "abi");
_Static_assert(offsetof(struct ttrace_file_header, boot_tsc) == 24, "abi");
_Static_assert(offsetof(struct ttrace_file_header, aux_durable_size) == 32, "abi");
_Static_assert(offsetof(struct ttrace_file_header, aux_ring_size) == 40, "abi");
_Static_assert(offsetof(struct ttrace_file_header, mask) == 48, "abi");
_Static_assert(offsetof(struct ttrace_file_header, mode) == 56, "abi");
_Static_assert(offsetof(struct ttrace_file_header, ring_entries) == 60, "abi");
_Static_assert(offsetof(struct ttrace_file_header, trace_version_major) == 64, "abi");
_Static_assert(offsetof(struct ttrace_file_header, entry_size) == 68, "abi");
_Static_assert(offsetof(struct ttrace_file_header, saved_ns) == 72, "abi");
_Static_assert(offsetof(struct ttrace_file_header, filter) == 80, "abi");
_Static_assert(offsetof(struct ttrace_file_header, flags) == 160, "abi");

#define TTRACE_FILE_EVENTS	1
#define TTRACE_FILE_AUX_DURABLE 2
#define TTRACE_FILE_AUX_RING	3
#define TTRACE_FILE_LEDGER	4
#define TTRACE_FILE_END		5
#define TTRACE_FILE_CHUNK	6 /* minor 1: a recording's */
#define TTRACE_FILE_CPU_EVENTS	7 /* minor 3: one CPU's slots, in a CHUNK (minor 4: or a save) */
#define TTRACE_FILE_PREDICATE	8 /* minor 5: a save's `if PREDICATE` (A SAVE'S PREDICATE) */

struct ttrace_file_section {
	uint32_t type;	   /* TTRACE_FILE_* */
	uint32_t reserved; /* zero */
	uint64_t size;	   /* payload bytes after this head, a multiple of 8 */
};

_Static_assert(sizeof(struct ttrace_file_section) == 16, "abi");

/* The head of CPU_EVENTS' payload; whole 64-byte slots of CPU cpu follow. */
struct ttrace_file_cpu_events {
	uint32_t cpu;	   /* below the header's num_cpus */
	uint32_t reserved; /* zero */
};

_Static_assert(sizeof(struct ttrace_file_cpu_events) == 8, "abi");

/* The head of AUX_RING's payload; last - first bytes follow. */
struct ttrace_file_aux_ring {
	uint64_t first; /* the position of the first record copied */
	uint64_t last;	/* one past the last record's end */
};

_Static_assert(sizeof(struct ttrace_file_aux_ring) == 16, "abi");

/* One CPU's entry of LEDGER, in entries. */
struct ttrace_file_ledger {
	uint64_t emitted; /* = stored + overwritten + dropped + cleared */
	uint64_t stored;
	uint64_t overwritten;
	uint64_t dropped;
	uint64_t cleared;
	uint64_t lost; /* what the save's markers for this CPU add up to */
};

_Static_assert(sizeof(struct ttrace_file_ledger) == 48, "abi");

struct ttrace_file_end {
	uint64_t events;   /* events in the EVENTS sections */
	uint64_t lost;	   /* the entries their markers add up to */
	uint64_t checksum; /* the file's bytes before this section's head (CHECKSUMS) */
	uint64_t reserved; /* zero */
};

_Static_assert(sizeof(struct ttrace_file_end) == 32, "abi");

/* The head of a CHUNK's payload. */
struct ttrace_file_chunk {
	uint64_t seq;	   /* 0 for the first chunk, then one more each */
	uint32_t num_cpus; /* the header's: the ttrace_file_chunk_cpu that follow */
	uint32_t flags;	   /* TTRACE_CHUNK_F_* */
	uint64_t ns;	   /* ns since boot when the chunk began, before its events were copied */
};

#define TTRACE_CHUNK_F_RESUMED (1u << 0) /* the first chunk after a restart of traced */

_Static_assert(sizeof(struct ttrace_file_chunk) == 24, "abi");

/* One CPU's running counts, in entries, as of the end of its chunk. */
struct ttrace_file_chunk_cpu {
	uint64_t first;	  /* the ring index the recording began at (every chunk alike) */
	uint64_t next;	  /* the ring index it has read up to */
	uint64_t entries; /* entries in the file so far: events and their continuations */
	uint64_t lost;	  /* what the markers so far add up to */
};

_Static_assert(sizeof(struct ttrace_file_chunk_cpu) == 32, "abi");

/* The head of PREDICATE's payload; len bytes of text follow, then zeros to a multiple of 8. */
struct ttrace_file_predicate {
	uint32_t len;	   /* 1..TTRACE_PRED_TEXT_MAX */
	uint32_t reserved; /* zero */
};

_Static_assert(sizeof(struct ttrace_file_predicate) == 8, "abi");

#define TTRACE_EXPORT_LINE_MAX 128
/* A host file's name: SAVE's name and the prefix traced adds below CONTROL (abi/traced.h). */
#define TTRACE_EXPORT_NAME_MAX 96
_Static_assert(sizeof("begin  replace\n") - 1 + TTRACE_EXPORT_NAME_MAX <= TTRACE_EXPORT_LINE_MAX,
	       "abi: a begin line fits");

/* FNV-1a, 64 bits: the constants of both CHECKSUMS (common/fnv.h computes them). */
#define TTRACE_FNV_OFFSET 0xcbf29ce484222325ull
#define TTRACE_FNV_PRIME  0x00000100000001b3ull

#define TTRACE_EXPORT_MAGIC    0x57585053u /* "SPXW" */
#define TTRACE_EXPORT_VERSION  2	   /* 2: HOST CHECKSUMS */
#define TTRACE_EXPORT_CTL_SIZE 4096
#define TTRACE_EXPORT_ALIGN    16
#define TTRACE_EXPORT_REC      0x43455253u /* "SREC": a record of the file's bytes */
#define TTRACE_EXPORT_PAD      0x44415053u /* "SPAD": the ring's end left unused */

/* The window's first bytes (THE EXPORT WINDOW): [g] the guest writes it, [h] the host. */
struct ttrace_export_ctl {
	uint32_t magic;	      /* [g] TTRACE_EXPORT_MAGIC */
	uint32_t version;     /* [g] TTRACE_EXPORT_VERSION */
	uint64_t ring_offset; /* [g] TTRACE_EXPORT_CTL_SIZE */
	uint64_t ring_size;   /* [g] a multiple of TTRACE_EXPORT_ALIGN */
	uint32_t refused;     /* [h] TTRACE_EXPORT_REFUSED_*: the file in progress was dropped */
	uint32_t reserved;    /* zero */
	uint64_t pad0[4];
	uint64_t head; /* [g] bytes ever published */
	uint64_t pad1[7];
	uint64_t tail; /* [h] bytes ever taken */
	uint64_t pad2[7];
};

#define TTRACE_EXPORT_REFUSED_IO    1 /* a bad window or a write that failed: -EIO */
#define TTRACE_EXPORT_REFUSED_LIMIT 2 /* the host's limit for this run: -ENOSPC */

_Static_assert(sizeof(struct ttrace_export_ctl) == 192, "abi");
_Static_assert(offsetof(struct ttrace_export_ctl, refused) == 24, "abi");
_Static_assert(offsetof(struct ttrace_export_ctl, head) == 64, "abi");
_Static_assert(offsetof(struct ttrace_export_ctl, tail) == 128, "abi");

/* The head of one record in the ring; len bytes follow. */
struct ttrace_export_rec {
	uint32_t magic; /* TTRACE_EXPORT_REC or TTRACE_EXPORT_PAD */
	uint32_t len;	/* bytes of the file that follow, a multiple of 8; PAD: 0 */
	uint64_t pos;	/* the head it was published at: the sequence word */
};

_Static_assert(sizeof(struct ttrace_export_rec) == TTRACE_EXPORT_ALIGN, "abi");

#endif
