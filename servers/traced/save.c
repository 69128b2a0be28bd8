/*
 * save: SAVE (abi/traced.h) writes one trace file (abi/trace_file.h) to
 * the host through the export channel (export.c). The file is built in
 * the export window's ring itself (window.c), a record at a time: the
 * request's predicate, if any, the events, then the aux records and the
 * ledger. A save copies each CPU's entries as ranges (ranges.c) into
 * CPU_EVENTS sections, merged by the readers on the host
 * (abi/trace_file.h, PER-CPU SAVES), its filter or scope applied to each
 * range in place by the sieve (sieve.c); only a filter that selects by
 * position in the merged stream (count=, last=) takes them from the
 * merge behind DUMP (merge_fill, binary format). When a record fills it
 * is published, and the host takes it while the next one fills; the
 * checksum runs over every byte as it leaves.
 *
 * Below CONTROL a save cannot touch anyone else's file (abi/traced.h,
 * SAVE): its name gets the caller's level and pid in front, the host is
 * told not to replace a file already there, a SELF file carries only the
 * aux records of its own events (save_aux.c), and each tree has an
 * allowance of saves that refills slowly, so one program cannot flood
 * the host with files.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace_file.h"
#include "common/fnv.h"
#include "common/trace_aux.h"
#include "common/trace_ring.h"
#include "servers/traced/dump.h"
#include "servers/traced/export.h"
#include "servers/traced/file.h"
#include "servers/traced/merge.h"
#include "servers/traced/pred.h"
#include "servers/traced/ranges.h"
#include "servers/traced/record.h"
#include "servers/traced/request.h"
#include "servers/traced/save.h"
#include "servers/traced/save_aux.h"
#include "servers/traced/scope.h"
#include "servers/traced/sieve.h"
#include "servers/traced/state.h"
#include "servers/traced/tree.h"
#include "servers/traced/window.h"

/* An EVENTS section is filled in one go when this much of the window is left. */
#define EVENTS_ROOM_MIN (64 * 1024)
#define EVENTS_MAX	(1024 * 1024) /* one section's payload at most */
/* A record's bytes at most: the host writes one out while the next fills. */
#define RECORD_MAX (EVENTS_MAX + 64 * 1024)
#define SLOT	   TTRACE_ENTRY_SIZE

/* The allowance of saves below CONTROL: a burst, then one more each refill. */
#define SAVE_BURST     TRACED_SAVE_BURST
#define SAVE_REFILL_NS (TRACED_SAVE_REFILL_S * 1000000000ull)
#define SAVE_TREES     16 /* trees with an allowance at once; the least recent goes */

struct allowance {
	uint32_t tree; /* its root's pid; 0: a free entry */
	uint32_t saves;
	uint64_t at; /* when saves was last refilled */
};

static struct allowance allowances[SAVE_TREES];

/* A file on its way out through the window's ring. */
struct out {
	uint8_t *win;	   /* the record being filled, or NULL before it is reserved */
	size_t size;	   /* of a record */
	size_t used;	   /* bytes in the record not yet published */
	size_t hashed;	   /* of them, those in the checksum already */
	uint64_t sent;	   /* bytes the host has */
	uint64_t checksum; /* of every byte hashed (abi/trace_file.h, CHECKSUMS) */
	const char *begin; /* the begin line sent, its answer not yet taken; or NULL */
	int err;	   /* the first error: everything after it does nothing */
};

/* Adds the window's unhashed bytes to the checksum. */
static void hash(struct out *o)
{
	o->checksum = ttrace_sum_words(o->checksum, o->win + o->hashed, o->used - o->hashed);
	o->hashed = o->used;
}

/*
 * Publishes the record's bytes to the host; the first time, once the host
 * has answered the begin line (it drops what comes before that).
 */
static void flush(struct out *o)
{
	if (!o->err && o->begin) {
		o->err = export_answer(o->begin);
		o->begin = NULL;
	}
	if (o->err || !o->used) {
		return;
	}
	hash(o);
	window_publish(o->used);
	o->sent += o->used;
	o->used = o->hashed = 0;
	o->win = NULL;
}

/* A record to fill, waiting for the host to make room: whether there is one. */
static bool reserved(struct out *o)
{
	if (!o->err && !o->win) {
		o->size = window_record_max() < RECORD_MAX ? window_record_max() : RECORD_MAX;
		o->err = window_reserve(o->size, WINDOW_WAIT, &o->win);
	}
	return !o->err;
}

/* Appends len bytes, publishing the record each time it fills. */
static void put(struct out *o, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (reserved(o) && len) {
		size_t n = o->size - o->used < len ? o->size - o->used : len;
		memcpy(o->win + o->used, p, n);
		o->used += n;
		p += n;
		len -= n;
		if (o->used == o->size) {
			flush(o);
		}
	}
}

static void put_section(struct out *o, uint32_t type, uint64_t size)
{
	struct ttrace_file_section s = {.type = type, .size = size};

	put(o, &s, sizeof(s));
}

/* What the markers of a binary piece say was lost on each CPU. */
static void count_lost(const uint8_t *data, size_t len, uint64_t *lost)
{
	const union ttrace_slot *s = (const union ttrace_slot *)data;

	for (size_t i = 0; i < len / sizeof(*s); i++) {
		if (s[i].e.kind == TRACED_KIND_LOST && !s[i].e.ts && s[i].e.cpu < traced.ncpus) {
			lost[s[i].e.cpu] += s[i].e.data[0];
		}
	}
}

/*
 * The EVENTS sections: the dump's binary stream, a section a piece, each
 * filled in place in the window. Stops early only on an error.
 */
static void put_events(struct out *o, const struct traced_filter *f, const struct scope *scope,
		       const struct ttrace_filter_pred *pred, struct traced_cursor *c,
		       uint64_t *lost)
{
	struct ttrace_file_section head = {.type = TTRACE_FILE_EVENTS};
	bool done = false;

	while (reserved(o) && !done) {
		if (o->size - o->used < sizeof(head) + EVENTS_ROOM_MIN) {
			flush(o);
			continue;
		}
		size_t room = o->size - o->used - sizeof(head);
		struct merge_piece piece = {
		    .out = o->win + o->used + sizeof(head),
		    .max = room < EVENTS_MAX ? room : EVENTS_MAX,
		    .scope = scope,
		    .pred = pred,
		};
		/* Each piece is full, or the last: the merge waits out (or skips) writes itself. */
		done = merge_fill(MERGE_DUMP, f, c, TRACED_FORMAT_BINARY, &piece);
		if (!piece.len) {
			break;
		}
		count_lost(piece.out, piece.len, lost);
		if (scope) {
			save_aux_note(piece.out, piece.len);
		}
		head.size = piece.len;
		memcpy(o->win + o->used, &head, sizeof(head));
		o->used += sizeof(head) + piece.len;
	}
}

/*
 * The loss of one range, told apart as a dump's (abi/traced.h LOSSES):
 * what cannot have matched (its CPU left out by cpu=, before an event
 * older than since=, after one not older than until=), else the part of
 * it the ring no longer held when the save began (below held). lo is
 * the lowest index it may include; next_ts and prev_ts the events of its
 * CPU after and before it (0: not known, so not proved outside).
 */
static void classify(const struct sieve *sv, uint32_t cpu, uint64_t lo, uint64_t lost,
		     uint64_t held, uint64_t next_ts, uint64_t prev_ts, struct traced_cursor *c)
{
	if (!lost) {
		return;
	}
	if (sieve_cpu_out(sv, cpu) ||
	    (sv->flags & TRACED_F_SINCE && next_ts && next_ts < sv->since_ts) ||
	    (sv->flags & TRACED_F_UNTIL && prev_ts && prev_ts >= sv->until_ts)) {
		c->outside += lost;
		return;
	}
	c->early += held > lo ? (held - lo < lost ? held - lo : lost) : 0;
}

/*
 * CPU c's CPU_EVENTS sections (abi/trace_file.h, PER-CPU SAVES): its
 * entries from the cursor's next to its end, ranges copied at once
 * (ranges.c) into the window, the sieve's filter applied to each in
 * place (sieve.c), each a section. A range held up below the end (a
 * write in progress) is looked at again, yielding, and after
 * RANGE_STUCK_LOOKS looks its entry is skipped as lost (R6). Stops early
 * only on an error.
 */
static void put_cpu(struct out *o, uint32_t cpu, struct sieve *sv, const struct scope *scope,
		    struct traced_cursor *c, uint64_t *lost)
{
	struct ttrace_file_cpu_events head = {.cpu = cpu};
	const size_t heads = sizeof(struct ttrace_file_section) + sizeof(head);
	struct range_cursor rc = {.next = c->next[cpu]};
	uint64_t end = c->end[cpu], n_ring = traced.ring[cpu].entries;
	/* What the ring no longer held when the save began: lost, and early (LOSSES). */
	uint64_t held = end > n_ring ? end - n_ring : 0, prev_ts = 0;
	uint32_t looks = 0;

	while (reserved(o) && (rc.next < end || rc.skipped)) {
		if (o->size - o->used < heads + EVENTS_ROOM_MIN) {
			flush(o);
			continue;
		}
		size_t room = (o->size - o->used - heads) / SLOT * SLOT;
		uint8_t *payload = o->win + o->used + heads;
		uint64_t lo = rc.next - rc.skipped;
		struct range r;
		struct sieve_seen seen;
		range_copy(cpu, &rc, end, payload, room < EVENTS_MAX ? room : EVENTS_MAX, &r);
		if (!r.len) {
			if (++looks < RANGE_STUCK_LOOKS) {
				sys_yield();
			} else {
				range_skip(&rc);
				looks = 0;
			}
			continue;
		}
		looks = 0;
		sieve_range(sv, cpu, payload, &r, &seen);
		classify(sv, cpu, lo, r.lost, held, seen.next_ts, prev_ts, c);
		prev_ts = seen.last_ts ? seen.last_ts : prev_ts;
		c->events += r.events;
		c->lost += r.lost;
		lost[cpu] += r.lost;
		if (!r.len) {
			continue; /* the filter left nothing of it, and nothing was lost */
		}
		if (scope) {
			save_aux_note(payload, r.len);
		}
		put_section(o, TTRACE_FILE_CPU_EVENTS, sizeof(head) + r.len);
		put(o, &head, sizeof(head));
		o->used += r.len;
	}
	c->next[cpu] = rc.next;
}

/*
 * AUX_DURABLE and AUX_RING: the records events refer to, the ring as one
 * consistent copy; for a SELF save (scope), with the records its events do
 * not refer to blanked.
 */
static void put_aux(struct out *o, const struct scope *scope)
{
	const struct ttrace_header *h = traced.area.hdr;
	struct ttrace_aux_view v;

	/* acquire: pairs with the release store of aux_durable_end (AW3) */
	uint64_t durable = __atomic_load_n(&h->aux_durable_end, __ATOMIC_ACQUIRE);
	put_section(o, TTRACE_FILE_AUX_DURABLE, durable);
	put(o, traced.area.aux, durable);

	int err = ttrace_aux_snapshot(&traced.area, traced.aux_copy, traced.aux_copy_size, &v);
	if (err) {
		o->err = o->err ? o->err : err;
		return;
	}
	if (scope) {
		save_aux_blank(&v, scope);
	}
	struct ttrace_file_aux_ring ring = {.first = v.next, .last = v.end};
	put_section(o, TTRACE_FILE_AUX_RING, sizeof(ring) + (v.end - v.next));
	put(o, &ring, sizeof(ring));
	put(o, (const uint8_t *)v.words + (v.next - v.start), v.end - v.next);
}

static void put_ledger(struct out *o, const uint64_t *lost)
{
	put_section(o, TTRACE_FILE_LEDGER, sizeof(struct ttrace_file_ledger) * traced.ncpus);
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct ttrace_counts c;
		ttrace_ring_counts(&traced.ring[i], &c);
		struct ttrace_file_ledger l = {
		    /* the file's ledger has no filtered (abi/trace_file.h): what reached the ring
		     */
		    .emitted = c.emitted - c.filtered,
		    .stored = c.stored,
		    .overwritten = c.overwritten,
		    .dropped = c.dropped,
		    .cleared = c.cleared,
		    .lost = lost[i],
		};
		put(o, &l, sizeof(l));
	}
}

static void put_header(struct out *o, const struct traced_filter *f)
{
	struct ttrace_file_header fh;

	file_fill_header(&fh, f, (uint64_t)sys_clock_ns());
	put(o, &fh, sizeof(fh));
}

/*
 * PREDICATE (abi/trace_file.h, A SAVE'S PREDICATE): the text the request
 * carried, which pred_request() compiled, so a reader knows the events
 * it left out are missing on purpose. Nothing without one.
 */
static void put_pred(struct out *o, const struct traced_pred *p)
{
	static const uint8_t zeros[8];
	struct ttrace_file_predicate head = {.len = p->len};
	size_t padded = (p->len + 7u) & ~(size_t)7;

	if (!p->len) {
		return;
	}
	put_section(o, TTRACE_FILE_PREDICATE, sizeof(head) + padded);
	put(o, &head, sizeof(head));
	put(o, p->text, p->len);
	put(o, zeros, padded - p->len);
}

/* Takes one save from the allowance of tree: 0, or -EAGAIN when it has none left. */
static int allowance_take(uint32_t tree)
{
	uint64_t now = (uint64_t)sys_clock_ns();
	struct allowance *a = NULL, *least = &allowances[0];

	for (uint32_t i = 0; i < SAVE_TREES && !a; i++) {
		if (allowances[i].tree == tree) {
			a = &allowances[i];
		} else if (allowances[i].at < least->at) {
			least = &allowances[i];
		}
	}
	if (!a) {
		a = least;
		*a = (struct allowance){.tree = tree, .saves = SAVE_BURST, .at = now};
	}
	uint64_t refills = (now - a->at) / SAVE_REFILL_NS;
	if (refills >= SAVE_BURST - a->saves) {
		a->saves = SAVE_BURST;
		a->at = now; /* full: time spent full earns nothing */
	} else {
		a->saves += (uint32_t)refills;
		a->at += refills * SAVE_REFILL_NS;
	}
	if (!a->saves) {
		return -EAGAIN;
	}
	a->saves--;
	return 0;
}

/*
 * The begin line for name: CONTROL's as given, and allowed to replace;
 * below it, "self-PID-NAME" or "read-PID-NAME", never replacing.
 */
static void begin_line(const struct request *req, const char *name, char *line, size_t size)
{
	if (req->level >= TRACED_LEVEL_CONTROL) {
		snprintf(line, size, "begin %s replace\n", name);
	} else {
		snprintf(line, size, "begin %s-%u-%s\n",
			 req->level >= TRACED_LEVEL_READ ? TRACED_SAVE_PREFIX_READ
							 : TRACED_SAVE_PREFIX_SELF,
			 req->pid, name);
	}
}

int save_run(const struct request *req, struct reply *rep)
{
	struct traced_save_request r;
	static const struct traced_cursor start;
	struct traced_cursor c = start;
	struct out o = {.checksum = TTRACE_FNV_OFFSET};
	uint64_t lost[TTRACE_MAX_CPUS] = {0};
	char line[TTRACE_EXPORT_LINE_MAX];
	struct sieve sieve;
	const struct ttrace_filter_pred *pred;

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (!file_name_ok(r.name) || dump_check(TRACED_OP_DUMP, &r.filter, &c) ||
	    pred_request(&r.pred, &r.filter, &pred)) {
		return -EINVAL;
	}
	if (record_active()) {
		return -EBUSY; /* the channel carries one file at a time */
	}
	const struct scope *scope;
	uint8_t *win;
	size_t size;
	int err = scope_request(req, &scope);
	if (!err) {
		err = export_open(&win, &size);
	}
	/* Last of the checks: a request refused for anything else costs no save. */
	if (!err && req->level < TRACED_LEVEL_CONTROL) {
		err = allowance_take(tree_of(req->pid));
	}
	if (err) {
		return err;
	}
	save_aux_reset();
	begin_line(req, r.name, line, sizeof(line));
	/* The host answers while the first record fills: flush() takes the answer. */
	o.err = export_send(line);
	o.begin = line;
	put_header(&o, &r.filter);
	put_pred(&o, &r.pred);
	/* Per CPU (abi/trace_file.h, PER-CPU SAVES) unless the filter selects by position. */
	if (sieve_init(&sieve, &r.filter, scope)) {
		sieve_pred(&sieve, pred);
		merge_cursor_start(&c, false);
		for (uint32_t i = 0; i < traced.ncpus; i++) {
			put_cpu(&o, i, &sieve, scope, &c, lost);
		}
	} else {
		put_events(&o, &r.filter, scope, pred, &c, lost);
	}
	put_aux(&o, scope);
	put_ledger(&o, lost);
	hash(&o);
	struct ttrace_file_end end = {.events = c.events, .lost = c.lost, .checksum = o.checksum};
	put_section(&o, TTRACE_FILE_END, sizeof(end));
	put(&o, &end, sizeof(end));
	flush(&o);
	if (o.err) {
		return o.err;
	}
	snprintf(line, sizeof(line), "end %llu %016llx\n", (unsigned long long)o.sent,
		 (unsigned long long)o.checksum);
	err = export_request(line);
	if (err) {
		return err;
	}
	struct traced_save_reply answer = {.events = c.events,
					   .lost = c.lost,
					   .bytes = o.sent,
					   .outside = c.outside,
					   .early = c.early};
	memcpy(rep->buf, &answer, sizeof(answer));
	rep->len = sizeof(answer);
	return 0;
}
