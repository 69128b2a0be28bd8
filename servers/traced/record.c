/*
 * record: RECORD, REC_STOP and REC_STATUS (abi/traced.h), a recording
 * (abi/trace_file.h, A RECORDING) streamed to the host through the export
 * channel (export.c) while the run goes on. The events go out per CPU,
 * each CPU's new entries a range copied at once into the chunk
 * (ranges.c; abi/trace_file.h, PER-CPU CHUNKS) with the filter applied
 * to it in place (sieve.c), merged by the readers on the host; only
 * with count=, which selects by position in the merged stream, do they
 * come from the merge (merge.c) as a FOLLOW that started at the heads,
 * binary, with its loss markers. main.c calls record_drain() between
 * requests and when the kernel's wake-up (wake.c) or its fallback
 * timeout ends a wait while one runs, and each call sends chunks while a
 * chunk's worth waits, RECORD_BURST at most: a request waits for that
 * many at most, not for all that the rings hold (a stop among them).
 * Between two calls traced waits on the wake-up, never on a timeout of
 * 0: such a wait ends only at CPU 0's next scheduler tick (10 ms), in
 * which a ring at full speed laps, where the wake-up's level check ends
 * it at the next timer interrupt (1 ms while recording, wake.h).
 *
 * A chunk is built in the export window: the events first (per CPU,
 * straight into the chunk's record; merged, into the window's private
 * part, window.c), then the aux ring's snapshot, so that every record an
 * event names was written before the snapshot was taken and goes out in
 * the same chunk, ahead of the events (a name is never evicted from a
 * recording); then the chunk is assembled in a
 * record of the window's ring: head, each CPU's running counts, the aux
 * piece, the events, and a word for the checksum of the whole file so
 * far, which the host writes (abi/trace_file.h, CHECKSUMS): summing every
 * word here cost the drain more than the copy did. Publishing the record
 * sends it: the host appends whole chunks only. A drain that
 * finds the ring without room for a chunk leaves the events in the rings
 * for its next look (the host takes records within milliseconds).
 *
 * The counts are exact because nothing else moves the cursor: CLEAR and
 * SAVE answer -EBUSY while a recording runs (a clear would take entries
 * neither recorded nor lost; a save would share the channel).
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace_file.h"
#include "common/fnv.h"
#include "common/trace_aux.h"
#include "servers/traced/dump.h"
#include "servers/traced/export.h"
#include "servers/traced/file.h"
#include "servers/traced/merge.h"
#include "servers/traced/ranges.h"
#include "servers/traced/record.h"
#include "servers/traced/request.h"
#include "servers/traced/sieve.h"
#include "servers/traced/state.h"
#include "servers/traced/wake.h"
#include "servers/traced/window.h"

#define CHUNK_EVENTS_MAX  (1024 * 1024) /* the most bytes of events one chunk carries */
#define CHUNK_MIN	  (256 * 1024)	/* bytes of pending entries worth a chunk at once */
#define CHUNK_PERIOD_NS	  200000000ull	/* else a chunk this often while events come */
#define RECORD_BURST	  16		/* the most chunks one record_drain() sends */
#define SLOT		  TTRACE_ENTRY_SIZE
#define OWNER_CHECK_NS	  100000000ull /* how often to look whether the owner still runs */
#define OWNER_THREADS_MAX 256	       /* threads looked through for it */

/*
 * What a recording needs to go on: kept in the export window's private
 * bytes too (struct keep), so that a restarted traced resumes it.
 */
struct run {
	struct traced_record_status st;
	struct traced_filter filter;
	struct traced_cursor cursor;
	struct ttrace_file_chunk_cpu cpu[TTRACE_MAX_CPUS];
	uint64_t aux_sent;		    /* aux positions below it are in the file */
	uint64_t unsynced[TTRACE_MAX_CPUS]; /* ranges.h: a recording per CPU only */
	uint64_t skipped[TTRACE_MAX_CPUS];  /* ranges.h: a recording per CPU only */
	uint32_t owner;			    /* the pid that asked: the recording ends with it */
	uint32_t resumed;		    /* the next chunk is the first after a restart */
};

/*
 * The private part's last KEEP_SIZE bytes while a recording runs: the run as
 * the host has it (done) and, while a chunk is being published, as it
 * will be once the host has it (next). A restarted traced asks the host
 * which of the two its file matches (abi/trace_file.h, resume): the host
 * takes every record published before it answers.
 */
struct keep {
	uint64_t magic;	   /* KEEP_MAGIC */
	uint64_t boot_tsc; /* the trace header's: a window from another boot is not ours */
	uint64_t sending;  /* 1: next is on its way */
	uint64_t sum;	   /* ttrace_sum_words() of done and next */
	struct run done, next;
};

#define KEEP_MAGIC 0x7065656b64726372ull /* "rcrdkeep" */
#define KEEP_SIZE  (16 * 1024)
_Static_assert(sizeof(struct keep) <= KEEP_SIZE, "the keep fits its room");
_Static_assert(sizeof(struct run) % 8 == 0, "the keep's sum takes whole words");

static struct recorder {
	struct run run;
	uint64_t last_ns;   /* when the last chunk went */
	uint64_t owner_ns;  /* when owner was last looked for */
	bool per_cpu;	    /* the filter has a sieve: the events go out per CPU */
	struct sieve sieve; /* the filter, compiled (sieve.h); not kept: made again on resume */
	struct traced_record_status scratch_reply; /* a stop nobody asked for answers here */
	bool unreported; /* the recording ended early and no stop has answered why yet */
} rec;

bool record_active(void)
{
	return rec.run.st.active;
}

/* Entries waiting in the rings past the recorder's cursor. */
static uint64_t pending(void)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* acquire: pairs with the writer's reservation (abi/trace.h W1) */
		n += __atomic_load_n(&traced.ring[i].state->head, __ATOMIC_ACQUIRE) -
		     rec.run.cursor.next[i];
	}
	return n;
}

uint64_t record_tick_ns(void)
{
	if (!rec.run.st.active) {
		return TIMEOUT_FOREVER;
	}
	return wake_wait_ns(&rec.run.cursor, CHUNK_MIN / SLOT);
}

/* Where the keep lives: the last KEEP_SIZE bytes of the window's private part. */
static struct keep *keep_at(void)
{
	return (struct keep *)(window_private() + WINDOW_PRIVATE_SIZE - KEEP_SIZE);
}

/* The keep: the run done, and next (NULL: none) while it is on its way. */
static void keep_write(const struct run *done, const struct run *next)
{
	struct keep *k = keep_at();

	k->magic = KEEP_MAGIC;
	k->boot_tsc = traced.area.hdr->boot_tsc;
	k->sending = next != NULL;
	k->done = *done;
	k->next = next ? *next : *done;
	/* Word-wise, a sixth of the byte-wise hash's instructions: it runs twice a chunk. */
	k->sum = ttrace_sum_words(TTRACE_FNV_OFFSET, &k->done, 2 * sizeof(struct run));
}

/*
 * Publishes the len bytes of the reserved record, which take the run from
 * before to rec.run. The keep says both
 * while the record is published: traced may die on either side of it.
 */
static void ship(size_t len, const struct run *before)
{
	rec.run.st.bytes += len;
	keep_write(before, &rec.run);
	window_publish(len);
	keep_write(&rec.run, NULL);
}

/* The most bytes a chunk takes: the header, durable part, aux ring, counts and events. */
static size_t chunk_max(void)
{
	const struct ttrace_header *h = traced.area.hdr;

	return sizeof(struct ttrace_file_header) + 4096 + h->aux_durable_size + h->aux_ring_size +
	       traced.ncpus * sizeof(struct ttrace_file_chunk_cpu) + CHUNK_EVENTS_MAX;
}

/* The recording's file header: a save's, flagged as a recording, from the start of the run.
 */
static void file_header(struct ttrace_file_header *fh)
{
	file_fill_header(fh, &rec.run.filter, rec.run.st.started_ns);
	fh->flags = TTRACE_FILE_F_RECORDING;
}

/* Adds a binary piece's events and markers to the running counts. */
static void tally(const uint8_t *data, size_t len)
{
	for (size_t at = 0; at < len;) {
		struct ttrace_entry e;
		memcpy(&e, data + at, sizeof(e));
		if (e.kind == TRACED_KIND_LOST && !e.ts) {
			rec.run.cpu[e.cpu].lost += e.data[0];
			rec.run.st.lost += e.data[0];
			at += SLOT;
			continue;
		}
		uint32_t slots = 1 + TTRACE_NCONT_OF(e.ctx);
		rec.run.cpu[e.cpu].entries += slots;
		rec.run.st.events++;
		at += slots * SLOT;
	}
}

static size_t put(uint8_t *out, size_t at, const void *p, size_t n)
{
	memcpy(out + at, p, n);
	return at + n;
}

static size_t put_section(uint8_t *out, size_t at, uint32_t type, uint64_t size)
{
	struct ttrace_file_section s = {.type = type, .size = size};

	return put(out, at, &s, sizeof(s));
}

/*
 * Whether the recording goes out per CPU (abi/trace_file.h, PER-CPU
 * CHUNKS): its filter has a sieve (sieve.h), made at the start (or the
 * resume).
 */
static bool per_cpu(void)
{
	return rec.per_cpu;
}

/*
 * Each CPU's new entries as a CPU_EVENTS section at at, a range copied at
 * once (ranges.c) and sieved in place (sieve.c), up to the recording's
 * end at a stop (MERGE_DUMP) or the heads (MERGE_FOLLOW); each CPU gets
 * its share of a chunk. Returns where the sections end; *events and
 * *done as chunk()'s.
 */
static size_t put_ranges(uint8_t *out, size_t at, uint32_t how, uint64_t *events, bool *done)
{
	size_t share = CHUNK_EVENTS_MAX / traced.ncpus / SLOT * SLOT;

	*done = true;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct ttrace_file_cpu_events head = {.cpu = i};
		struct range r;
		size_t payload = at + sizeof(struct ttrace_file_section) + sizeof(head);
		uint64_t end = how == MERGE_DUMP ? rec.run.cursor.end[i] : UINT64_MAX;

		struct range_cursor rc = {rec.run.cursor.next[i], rec.run.unsynced[i],
					  rec.run.skipped[i]};
		struct sieve_seen seen;
		range_copy(i, &rc, end, out + payload, share, &r);
		sieve_range(&rec.sieve, i, out + payload, &r, &seen);
		rec.run.cursor.next[i] = rc.next;
		rec.run.unsynced[i] = rc.unsynced;
		rec.run.skipped[i] = rc.skipped;
		*done = *done && rec.run.cursor.next[i] >= end;
		if (!r.len) {
			continue;
		}
		at = put_section(out, at, TTRACE_FILE_CPU_EVENTS, sizeof(head) + r.len);
		at = put(out, at, &head, sizeof(head)) + r.len;
		*events += r.events;
		rec.run.cpu[i].entries += r.entries;
		rec.run.cpu[i].lost += r.lost;
		rec.run.st.events += r.events;
		rec.run.st.lost += r.lost;
	}
	return at;
}

/*
 * Builds and sends the next chunk of the merge's stream: how MERGE_FOLLOW
 * while the recording runs, MERGE_DUMP up to the cursor's end at its
 * stop. *events gets how many events it took, *done whether the stream
 * ended (never for a follow). 0, -EAGAIN when the ring has no room for a
 * chunk now (without WINDOW_WAIT in flags: nothing taken), or -E* (the
 * host refused, or the aux ring could not be copied).
 */
static int chunk(uint32_t how, uint32_t flags, uint64_t *events, bool *done)
{
	uint8_t *scratch = window_private(), *out;
	struct merge_piece piece = {.out = scratch, .max = CHUNK_EVENTS_MAX};
	struct ttrace_aux_view v;
	size_t at = 0;
	const struct run before = rec.run;

	*events = 0;
	*done = false;
	int err = window_reserve(chunk_max(), flags, &out);
	if (err) {
		return err;
	}
	uint64_t began = (uint64_t)sys_clock_ns(); /* busy_ns leaves the wait for room out */
	if (!rec.run.st.chunks) {
		struct ttrace_file_header fh;
		file_header(&fh);
		at = put(out, at, &fh, sizeof(fh));
	}
	size_t head = at;
	struct ttrace_file_chunk c = {.seq = rec.run.st.chunks,
				      .num_cpus = traced.ncpus,
				      .flags = rec.run.resumed ? TTRACE_CHUNK_F_RESUMED : 0,
				      .ns = (uint64_t)sys_clock_ns()};
	rec.run.resumed = 0;
	at += sizeof(struct ttrace_file_section);
	at = put(out, at, &c, sizeof(c));
	size_t counts = at; /* filled in once the events are taken */
	at += traced.ncpus * sizeof(struct ttrace_file_chunk_cpu);
	if (!rec.run.st.chunks) {
		/* acquire: pairs with the release store of aux_durable_end (AW3) */
		uint64_t durable =
		    __atomic_load_n(&traced.area.hdr->aux_durable_end, __ATOMIC_ACQUIRE);
		at = put_section(out, at, TTRACE_FILE_AUX_DURABLE, durable);
		at = put(out, at, traced.area.aux, durable);
	}
	if (per_cpu()) {
		if (rec.run.filter.flags & TRACED_F_TREE) {
			/* The tree as it is now: it grows as the recording goes on. */
			sieve_init(&rec.sieve, &rec.run.filter, NULL);
		}
		at = put_ranges(out, at, how, events, done);
	} else {
		*done =
		    merge_fill(how, &rec.run.filter, &rec.run.cursor, TRACED_FORMAT_BINARY, &piece);
		tally(piece.out, piece.len);
		*events = piece.events;
	}
	/*
	 * After the events: every record they name is in the snapshot (see the
	 * top). Only when the ring has new records: a copy of the whole ring
	 * a chunk was most of a chunk's cost.
	 */
	/* acquire: pairs with the writer's release store of aux_last (AW3) */
	uint64_t last = __atomic_load_n(&traced.area.hdr->aux_last, __ATOMIC_ACQUIRE);
	v = (struct ttrace_aux_view){.next = last, .end = last};
	if (last != rec.run.aux_sent) {
		err = ttrace_aux_snapshot(&traced.area, traced.aux_copy, traced.aux_copy_size, &v);
		if (err) {
			return err;
		}
	}
	uint64_t from = rec.run.aux_sent > v.next ? rec.run.aux_sent : v.next;
	if (v.end > from) {
		struct ttrace_file_aux_ring r = {.first = from, .last = v.end};
		at = put_section(out, at, TTRACE_FILE_AUX_RING, sizeof(r) + (v.end - from));
		at = put(out, at, &r, sizeof(r));
		at = put(out, at, (const uint8_t *)v.words + (from - v.start), v.end - from);
		rec.run.aux_sent = v.end;
	}
	if (piece.len) {
		at = put_section(out, at, TTRACE_FILE_EVENTS, piece.len);
		at = put(out, at, scratch, piece.len);
	}
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		rec.run.cpu[i].next = rec.run.cursor.next[i];
		counts = put(out, counts, &rec.run.cpu[i], sizeof(rec.run.cpu[i]));
	}
	struct ttrace_file_section s = {.type = TTRACE_FILE_CHUNK,
					.size = at + sizeof(uint64_t) - head - sizeof(s)};
	memcpy(out + head, &s, sizeof(s));
	static const uint64_t host_sums = 0; /* the host writes the chunk's checksum here */
	at = put(out, at, &host_sums, sizeof(host_sums));
	rec.run.st.chunks++;
	rec.last_ns = (uint64_t)sys_clock_ns();
	rec.run.st.busy_ns += rec.last_ns - began;
	ship(at, &before);
	return 0;
}

/*
 * Ends the recording on an error: said once on the console, kept in its
 * status, and the answer of the next stop (record_stop()), whose asker
 * would otherwise hear that nothing records.
 */
static void fail(int err)
{
	printf("traced: recording %s stopped: %s\n", rec.run.st.name, strerror(-err));
	rec.unreported = true;
	rec.run.st.error = err;
	rec.run.st.active = 0;
	rec.run.st.ended_ns = (uint64_t)sys_clock_ns();
	keep_at()->magic = 0; /* nothing to resume */
}

/* Whether the pid that started the recording still runs (the shell's always does). */
static bool owner_alive(void)
{
	static struct thread_info threads[OWNER_THREADS_MAX];
	long n = sys_thread_list(threads, OWNER_THREADS_MAX);

	for (long i = 0; i < n; i++) {
		if (threads[i].pid == rec.run.owner) {
			return true;
		}
	}
	return n < 0; /* the list unknown: the recording goes on */
}

void record_drain(void)
{
	uint64_t now = (uint64_t)sys_clock_ns();

	if (rec.run.st.active && now - rec.owner_ns >= OWNER_CHECK_NS) {
		rec.owner_ns = now;
		if (!owner_alive()) {
			/* The owner was killed (a tracecat -r, say): its file still ends
			 * whole. */
			static const struct request stop = {0};
			struct reply ignored = {.buf = (uint8_t *)&rec.scratch_reply};
			record_stop(&stop, &ignored);
			return;
		}
	}
	for (int sent = 0; sent < RECORD_BURST && rec.run.st.active; sent++) {
		uint64_t waiting = pending(), events;
		if (waiting * SLOT < CHUNK_MIN &&
		    (!waiting || sent || now - rec.last_ns < CHUNK_PERIOD_NS)) {
			return;
		}
		bool done;
		int err = chunk(MERGE_FOLLOW, 0, &events, &done);
		if (err && err != -EAGAIN) {
			fail(err);
		}
		/*
		 * No room in the window's ring (the host takes records meanwhile), or
		 * a chunk without events (a write in progress): the next look.
		 */
		if (err || !events) {
			return;
		}
	}
}

/* The window's room for one chunk in a record, and for its events and the keep past the ring. */
static bool window_fits(void)
{
	return chunk_max() <= window_record_max() &&
	       CHUNK_EVENTS_MAX + KEEP_SIZE <= WINDOW_PRIVATE_SIZE;
}

int record_start(const struct request *req, struct reply *rep)
{
	struct traced_save_request r;
	static const struct traced_cursor zero;
	char line[TTRACE_EXPORT_LINE_MAX];

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (!file_name_ok(r.name) || dump_check(TRACED_OP_FOLLOW, &r.filter, &zero) || r.pred.len) {
		return -EINVAL;
	}
	if (rec.run.st.active) {
		return -EBUSY;
	}
	uint8_t *win;
	size_t size;
	int err = export_open(&win, &size);
	if (err) {
		return err;
	}
	memset(&rec.run, 0, sizeof(rec.run));
	if (!window_fits()) {
		return -ENOSPC;
	}
	snprintf(line, sizeof(line), "record %s replace\n", r.name);
	err = export_request(line);
	if (err) {
		return err;
	}
	memset(&rec.run.st, 0, sizeof(rec.run.st));
	memcpy(rec.run.st.name, r.name, sizeof(rec.run.st.name));
	rec.run.filter = r.filter;
	rec.per_cpu = sieve_init(&rec.sieve, &r.filter, NULL);
	rec.run.aux_sent = 0;
	rec.run.st.started_ns = (uint64_t)sys_clock_ns();
	rec.run.owner = req->pid;
	rec.owner_ns = rec.run.st.started_ns;
	rec.run.st.active = 1;
	rec.unreported = false; /* a new recording: the last one's early end is old news */
	memset(&rec.run.cursor, 0, sizeof(rec.run.cursor));
	merge_cursor_start(&rec.run.cursor, true);
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		rec.run.cpu[i] = (struct ttrace_file_chunk_cpu){.first = rec.run.cursor.next[i],
								.next = rec.run.cursor.next[i]};
	}
	/* The first chunk now: the host has the header and the names at once. */
	uint64_t events;
	bool done;
	err = chunk(MERGE_FOLLOW, WINDOW_WAIT, &events, &done);
	if (err) {
		fail(err);
		rec.unreported = false; /* its asker hears it now */
		return err;
	}
	memcpy(rep->buf, &rec.run.st, sizeof(rec.run.st));
	rep->len = sizeof(rec.run.st);
	return 0;
}

/* LEDGER and END after the last chunk, then the end line. */
static int finish(void)
{
	char line[TTRACE_EXPORT_LINE_MAX];
	uint8_t *out;
	int err = window_reserve(sizeof(struct ttrace_file_section) * 2 +
				     sizeof(struct ttrace_file_ledger) * traced.ncpus +
				     sizeof(struct ttrace_file_end),
				 WINDOW_WAIT, &out);
	if (err) {
		return err;
	}
	size_t at = put_section(out, 0, TTRACE_FILE_LEDGER,
				sizeof(struct ttrace_file_ledger) * traced.ncpus);

	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct ttrace_counts c;
		ttrace_ring_counts(&traced.ring[i], &c);
		/* the file's ledger has no filtered (abi/trace_file.h): what reached the ring */
		struct ttrace_file_ledger l = {.emitted = c.emitted - c.filtered,
					       .stored = c.stored,
					       .overwritten = c.overwritten,
					       .dropped = c.dropped,
					       .cleared = c.cleared,
					       .lost = rec.run.cpu[i].lost};
		at = put(out, at, &l, sizeof(l));
	}
	/* checksum 0: the host writes it, as the chunks' */
	struct ttrace_file_end end = {.events = rec.run.st.events, .lost = rec.run.st.lost};
	at = put_section(out, at, TTRACE_FILE_END, sizeof(end));
	at = put(out, at, &end, sizeof(end));
	const struct run before = rec.run;
	ship(at, &before);
	/* A recording's end line has no checksum: the host computed them all. */
	snprintf(line, sizeof(line), "end %llu\n", (unsigned long long)rec.run.st.bytes);
	return export_request(line);
}

/*
 * R6 for the per-CPU ranges at a stop: each CPU whose range stayed held
 * up below the stop's end through RANGE_STUCK_LOOKS looks skips the entry
 * holding it up (range_skip()), so the file still accounts for every
 * entry up to the end.
 */
static void skip_stuck(void)
{
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		if (rec.run.cursor.next[i] < rec.run.cursor.end[i]) {
			struct range_cursor rc = {rec.run.cursor.next[i], rec.run.unsynced[i],
						  rec.run.skipped[i]};
			range_skip(&rc);
			rec.run.cursor.next[i] = rc.next;
			rec.run.unsynced[i] = rc.unsynced;
			rec.run.skipped[i] = rc.skipped;
		}
	}
}

int record_stop(const struct request *req, struct reply *rep)
{
	if (req->len) {
		return -EINVAL;
	}
	if (!rec.run.st.active) {
		/*
		 * A recording that ended early (fail()) answers the first stop
		 * after it with why, so the stop neither waits for nor denies
		 * it; REC_STATUS keeps its totals.
		 */
		int why = rec.unreported ? rec.run.st.error : -ENOENT;
		rec.unreported = false;
		return why;
	}
	/*
	 * Up to the heads as they are now and no further: on a busy machine
	 * the rings go on filling, and what comes after the stop was asked
	 * is not the recording's (the stop would chase it). A write in
	 * progress below them is waited out.
	 */
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* acquire: pairs with the writer's reservation (abi/trace.h W1) */
		rec.run.cursor.end[i] =
		    __atomic_load_n(&traced.ring[i].state->head, __ATOMIC_ACQUIRE);
	}
	uint64_t events = 0;
	bool done = false;
	int err = 0;
	for (int stalls = 0; !err && !done;) {
		err = chunk(MERGE_DUMP, WINDOW_WAIT, &events, &done);
		if (err || events || done) {
			continue;
		}
		if (++stalls < RANGE_STUCK_LOOKS) {
			sys_yield();
		} else if (per_cpu()) {
			skip_stuck();
			stalls = 0;
		} else {
			break; /* the merge's reader skipped what it could (R6); the rest is its
				  loss */
		}
	}
	err = err ? err : finish();
	keep_at()->magic = 0; /* ended: nothing to resume */
	rec.run.st.active = 0;
	rec.run.st.ended_ns = (uint64_t)sys_clock_ns();
	rec.run.st.error = err;
	if (err) {
		printf("traced: recording %s stopped: %s\n", rec.run.st.name, strerror(-err));
	}
	memcpy(rep->buf, &rec.run.st, sizeof(rec.run.st));
	rep->len = sizeof(rec.run.st);
	return err;
}

void record_resume(void)
{
	char line[TTRACE_EXPORT_LINE_MAX];
	uint8_t *win;
	size_t size;
	struct keep k;

	if (export_open(&win, &size)) {
		return; /* no channel: nothing was recorded through it */
	}
	memcpy(&k, keep_at(), sizeof(k));
	if (k.magic != KEEP_MAGIC || k.boot_tsc != traced.area.hdr->boot_tsc ||
	    k.sum != ttrace_sum_words(TTRACE_FNV_OFFSET, &k.done, 2 * sizeof(struct run)) ||
	    !k.done.st.active) {
		return;
	}
	/* The chunk on its way when traced died either reached the host or not: it knows
	 * which. */
	const struct run *tries[] = {k.sending ? &k.next : NULL, &k.done};
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (!tries[i]) {
			continue;
		}
		snprintf(line, sizeof(line), "resume %s %llu\n", tries[i]->st.name,
			 (unsigned long long)tries[i]->st.bytes);
		if (!export_request(line)) {
			rec.run = *tries[i];
			rec.run.resumed = 1;
			rec.per_cpu = sieve_init(&rec.sieve, &rec.run.filter, NULL);
			rec.owner_ns = rec.last_ns = (uint64_t)sys_clock_ns();
			keep_write(&rec.run, NULL);
			printf("traced: recording %s resumed at byte %llu\n", rec.run.st.name,
			       (unsigned long long)rec.run.st.bytes);
			return;
		}
	}
	printf("traced: recording %s cannot resume: the host's file is not as it was left\n",
	       k.done.st.name);
	keep_at()->magic = 0;
}

int record_status(const struct request *req, struct reply *rep)
{
	if (req->len) {
		return -EINVAL;
	}
	memcpy(rep->buf, &rec.run.st, sizeof(rec.run.st));
	rep->len = sizeof(rec.run.st);
	return 0;
}
