/*
 * traced: the trace server (abi/traced.h is its protocol). state.c maps
 * the trace area and holds the state every part reads (struct traced);
 * main.c runs the receive -> dispatch -> reply loop; merge.c merges the
 * rings into their stream, which dump.c (DUMP, FOLLOW), bulk.c (BULK),
 * save.c and stats.c take pieces of; strings.c lists the aux buffer, uevent_ops.c user
 * events, page.c what their paged replies share, save.c writes trace
 * files to the host through export.c's channel, record.c streams a
 * recording through it (save_aux.c: what a SELF
 * file keeps of the aux ring), stats.c answers STATS, scope.c finds what
 * a SELF caller may read, tree.c the spawn tree quotas count by. traced is single-threaded:
 * one request at a time, so its state needs no lock.
 */
#ifndef SPOOR_TRACED_TRACED_H
#define SPOOR_TRACED_TRACED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/traced.h"
#include "abi/uevent.h"
#include "common/trace_aux.h"
#include "common/trace_decoder.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"

/* The trace area as traced mapped it: read-only, but for the reader page. */
struct traced {
	struct ttrace_area area;
	struct ttrace_ring ring[TTRACE_MAX_CPUS];
	uint32_t ncpus;
	uint64_t *aux_copy; /* room for a snapshot of the aux ring */
	size_t aux_copy_size;
	struct ttrace_decoder decoder; /* names and user-event definitions, found once */
};

extern struct traced traced;

/* Maps the trace area into traced (state.c); exits with one line if it cannot. */
void traced_map(void);

/* ns since boot of a TSC value (0 before boot). */
uint64_t traced_ns(uint64_t ts);

/* What an operation gets: the request, who made it, and where its reply goes. */
struct request {
	uint64_t arg;	  /* word 1 */
	const void *body; /* the request buffer */
	uint32_t len;
	uint32_t level; /* TRACED_LEVEL_*, from the badge init minted */
	uint32_t pid;	/* the caller, as the kernel reported it */
	uint32_t cap;	/* the slot of the capability the request carried, or IPC_NO_CAP:
			   main.c deletes it after the operation */
};

/*
 * The processes a SELF caller may read: itself and its descendants, as
 * the kernel's aux records of spawns (tag PROC) tell them. Bounded: a
 * descendant beyond SCOPE_MAX, or whose spawn record the aux ring has
 * evicted, is left out (its events are not shown, never others').
 */
#define SCOPE_MAX 256

struct scope {
	uint32_t n;
	uint32_t pid[SCOPE_MAX];
};

/* The scope of pid (scope.c): 0, or -E* if the aux buffer could not be read. */
int scope_build(uint32_t pid, struct scope *s);
bool scope_has(const struct scope *s, uint32_t pid);

/* The scope a request may read: NULL for READ and CONTROL (everything), else built. 0 or -E*. */
int request_scope(const struct request *req, const struct scope **out);

struct reply {
	uint64_t result;     /* word 1 */
	uint8_t *buf;	     /* TRACED_REPLY_MAX bytes */
	uint32_t len;	     /* bytes of buf to send */
	uint32_t cap;	     /* a slot whose capability goes along, or IPC_NO_CAP */
	uint32_t cap_rights; /* the rights the client's copy keeps */
	bool cap_delete;     /* traced's copy goes once sent */
};

/* DUMP and FOLLOW: one page of events. 0 or -EINVAL. */
int dump_page(uint32_t op, const struct request *req, struct reply *rep);

/*
 * The checks every DUMP-like request (op DUMP or FOLLOW) passes: its body
 * copied into *r and checked, and the scope of its caller (request_scope).
 * 0, or -EINVAL or request_scope()'s error.
 */
int dump_request(uint32_t op, const struct request *req, struct traced_dump_request *r,
		 const struct scope **scope);

/* BULK (bulk.c): one page of a binary DUMP into the caller's frame. 0 or -E*. */
int bulk_page(const struct request *req, struct reply *rep);

/*
 * The merge (merge.c) behind DUMP (how MERGE_DUMP: up to the heads the
 * first piece saw) and FOLLOW (MERGE_FOLLOW: without end), for callers
 * with their own buffer; it knows nothing of requests. dump_check()
 * (dump.c) checks a filter and cursor as a request's (0 or -EINVAL);
 * merge_cursor_start() starts cursor c of a new dump at each ring's last
 * clear (follow: at the heads); merge_fill() appends the next events of the stream from
 * cursor c (zeroed: a new one, which it starts) in format to piece->out,
 * at most piece->max bytes, sets piece->len and piece->events, moves c,
 * and returns whether the stream ended. A dump's false return comes with
 * a full piece: an entry held up below the end (a write or a clear in
 * progress) is waited for a while, then skipped as lost, within the call.
 * A follower's may come with nothing added: nothing new yet.
 */
struct merge_piece {
	uint8_t *out;
	size_t max;
	size_t len;
	uint32_t events;
	const struct scope *scope; /* only events of these pids; NULL: all */
};

#define MERGE_DUMP   0
#define MERGE_FOLLOW 1

int dump_check(uint32_t op, const struct traced_filter *f, const struct traced_cursor *c);
void merge_cursor_start(struct traced_cursor *c, bool follow);
bool merge_fill(uint32_t how, const struct traced_filter *f, struct traced_cursor *c,
		uint32_t format, struct merge_piece *piece);

/*
 * What the losses of a finished dump's cursor c mean for its question
 * (dump.c, with libc's traced_losses_format()): appended to b.
 */
struct format_buf;
void dump_losses(struct format_buf *b, const struct traced_cursor *c);

/* STRINGS: one page of aux records. 0 or -EINVAL. */
int strings_page(const struct request *req, struct reply *rep);

/*
 * User events (uevent_ops.c): REGISTER, UNREGISTER, EVENT_ON, EVENT_OFF and
 * EVENTS, each 0 or -E*; uevents_all() turns every event on or off with
 * the user category.
 */
int uevents_register(const struct request *req, struct reply *rep);
int uevents_unregister(const struct request *req, struct reply *rep);
int uevents_on(const struct request *req, struct reply *rep);
int uevents_off(const struct request *req, struct reply *rep);
int uevents_list(const struct request *req, struct reply *rep);
int uevents_all(bool on);

/*
 * Paged replies (page.c). cursor_check_common() checks what every cursor
 * traced gave out has: its magic, the area's CPU count, nothing for CPUs
 * the area lacks. A listing (STRINGS, EVENTS) keeps its position in
 * next[0] and may use end[0]; listing_cursor_check() takes a zeroed one
 * (a new listing) or one with nothing else set, next[0] <= next_max and
 * end[0] <= end_max, and listing_cursor_at() moves one to next. Each
 * returns 0 or -EINVAL. page_finish() writes the reply's head in front of
 * the len data bytes already at rep->buf + sizeof(struct traced_dump_reply).
 */
int cursor_check_common(const struct traced_cursor *c);
int listing_cursor_check(const struct traced_cursor *c, uint64_t next_max, uint64_t end_max);
void listing_cursor_at(struct traced_cursor *c, uint64_t next);
void page_finish(struct reply *rep, const struct traced_cursor *c, bool done, uint32_t len,
		 uint32_t count);

/* STATS (stats.c): one page of the answer. 0, -EINVAL, or -EBUSY for a write that never ended. */
int stats_page(const struct request *req, struct reply *rep);

/* SAVE (save.c): the whole file to the host, then the reply. 0 or -E*. */
int save_run(const struct request *req, struct reply *rep);

/*
 * The file header (abi/trace_file.h) a save or a recording starts with:
 * the area's geometry and clock as they are now, the filter f, saved_ns.
 */
struct ttrace_file_header;
void save_file_header(struct ttrace_file_header *fh, const struct traced_filter *f,
		      uint64_t saved_ns);

/*
 * A SAVE or RECORD name the host can use as it is: [A-Za-z0-9._-], not
 * starting with '.', NUL-padded to TRACED_SAVE_NAME_MAX.
 */
bool save_name_ok(const char *name);

/*
 * The recorder (record.c): RECORD, REC_STOP and REC_STATUS, each 0 or
 * -E*. record_drain() sends what the rings hold while a recording runs
 * (nothing otherwise); main.c calls it between requests and at least
 * every record_tick_ns() (TIMEOUT_FOREVER when none runs).
 */
#define RECORD_TICK_NS 5000000ull
int record_start(const struct request *req, struct reply *rep);
int record_stop(const struct request *req, struct reply *rep);
int record_status(const struct request *req, struct reply *rep);
bool record_active(void);
uint64_t record_tick_ns(void);
void record_drain(void);

/*
 * At start: goes on with the recording a killed traced left, if the
 * export window keeps one of this boot and the host's file is as it was
 * (record.c: struct keep). Says on the console what it did.
 */
void record_resume(void);

/*
 * What a SELF save's aux ring keeps (save_aux.c): save_refs_reset()
 * forgets the last save's references, save_refs_note() takes those of a
 * piece of binary dump (whole slots), and save_aux_blank() blanks, in
 * the snapshot view walks (traced.aux_copy), every record none of them
 * names and that is not the name of a process in scope.
 */
void save_refs_reset(void);
void save_refs_note(const uint8_t *data, size_t len);
void save_aux_blank(const struct ttrace_aux_view *view, const struct scope *scope);

/*
 * The root of pid's spawn tree (tree.c): the ancestor init spawned, pid
 * itself for a child of init or for init. Quotas and allowances count
 * by it.
 */
uint32_t tree_of(uint32_t pid);

/*
 * The export channel (export.c). export_open() maps the window on first
 * use and gives it: 0, -ENODEV without the channel's capabilities, or
 * -E*. export_request() sends one line of the channel's protocol and
 * waits for the host's answer: 0 for "ok", -EIO for an error (said on
 * the console), -ETIMEDOUT when the host says nothing.
 */
int export_open(uint8_t **window, size_t *size);
int export_request(const char *line);

#endif
