/*
 * trace_client: the client side of traced's protocol (abi/traced.h), one
 * implementation for the init shell, tracecat and the tests' programs:
 * finding traced, one request, paging through dumps, and the filter words
 * people type (`cpu=1 pid=3 kind=mem_pf,mem_cow last=20`).
 *
 * Not thread-safe: one thread of a program talks to traced at a time.
 */
#ifndef SPOOR_LIBC_TRACE_CLIENT_H
#define SPOOR_LIBC_TRACE_CLIENT_H

#include <spoor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/traced.h"
#include "abi/uevent.h"
#include "common/trace_filter.h"
#include "common/traced_words.h"

/* How long a request waits for traced: a page of a dump is well below it. */
#define TRACED_TIMEOUT_NS 20000000000ull

/* Talks to traced through the endpoint in slot from now on (init: its own copy). */
void traced_use(int slot);

/*
 * One request: op with word 1 = arg and body (len bytes, may be 0) as the
 * buffer; traced's buffer lands in reply (reply_max bytes; NULL for none)
 * and its word 1 in *result (may be NULL). Looks traced up on first use.
 * A request traced died with is sent again to the traced init restarts
 * (an UNREGISTER that had taken effect then answers -ENOENT). Returns 0,
 * traced's error, -ENOENT if there is no traced, -ETIMEDOUT if it did not
 * answer in TRACED_TIMEOUT_NS, or another IPC error. The typed stubs below
 * are the way to ask; this one sends what no stub would (the tests'
 * malformed requests).
 */
long traced_request(uint32_t op, uint64_t arg, const void *body, size_t len, void *reply,
		    size_t reply_max, uint64_t *result);

/*
 * The stubs: traced_call_<name>() for each operation of
 * abi/traced_ops.def but those whose reply is PAGES (the pager's, below),
 * its parameters made from the list's columns, in this order:
 *   arg WORD(what)         uint64_t what: word 1 of the request
 *   request TEXT           const char *text: its bytes, without the NUL
 *   request STRUCT(tag)    const struct tag *req
 *   request FRAME(tag)     const struct tag *req, uint32_t frame: the
 *                          slot of the frame a copy of which goes along
 *   reply STRUCT(tag)      struct tag *reply: filled on success
 *   reply CAP              uint32_t *cap: the slot of the capability the
 *                          reply carried, the caller's to keep (-EPROTO
 *                          when traced sent none)
 *   result WORD(what)      uint64_t *what: word 1 of the reply (may be NULL)
 * e.g. long traced_call_enable(uint64_t cats, uint64_t *mask). Each
 * returns as traced_request(), and any capability a reply carries that
 * the stub does not give out is deleted.
 */
#define TRACED_P_NONE
#define TRACED_P_WORD(what)  , uint64_t what
#define TRACED_P_TEXT	     , const char *text
#define TRACED_P_STRUCT(tag) , const struct tag *req
#define TRACED_P_FRAME(tag)  , const struct tag *req, uint32_t frame
#define TRACED_R_NONE
#define TRACED_R_STRUCT(tag) , struct tag *reply
#define TRACED_R_CAP	     , uint32_t *cap
#define TRACED_W_NONE
#define TRACED_W_WORD(what) , uint64_t *what
/* The parameters without the first one's comma. */
#define TRACED_PARAMS(...)	   TRACED_PARAMS_(__VA_ARGS__)
#define TRACED_PARAMS_(first, ...) __VA_ARGS__
#define TRACED_STUB(name, ...)	   long traced_call_##name(TRACED_PARAMS(__VA_ARGS__))
/* 1 when an operation has a stub, by its reply: all but PAGES. */
#define TRACED_STUBBED_NONE	   1
#define TRACED_STUBBED_STRUCT(tag) 1
#define TRACED_STUBBED_CAP	   1
#define TRACED_STUBBED_PAGES	   0
/* TRACED_IF(c)(text): text when c is 1, nothing when 0. */
#define TRACED_IF(c)	 TRACED_IF_(c)
#define TRACED_IF_(c)	 TRACED_IF_##c
#define TRACED_IF_1(...) __VA_ARGS__
#define TRACED_IF_0(...)
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result)                              \
	TRACED_IF(TRACED_STUBBED_##reply)                                                          \
	(TRACED_STUB(name, TRACED_P_##arg TRACED_P_##request TRACED_R_##reply TRACED_W_##result);)
#include "abi/traced_ops.def"
#undef TRACED_OP

/*
 * The trace area's CPU count, asked of traced once (STATUS) and then
 * remembered, so filters can be checked without a request each time.
 * Returns it, or -E* as traced_request().
 */
long traced_num_cpus(void);

/* Pages through a DUMP, FOLLOW, STRINGS, EVENTS or STATS: the request it repeats, and the last
 * reply. */
struct traced_pager {
	uint32_t op;
	union {
		struct traced_dump_request dump;
		struct traced_strings_request strings;
		struct traced_stats_request stats;
	} req;
	union {
		struct traced_dump_reply head;
		uint8_t bytes[TRACED_REPLY_MAX];
	} reply;
	const uint8_t *window; /* BULK: the frame's pages land here (mapped read-only); else NULL */
	size_t window_size;
	uint32_t frame; /* BULK: the frame's slot */
};

/* A new DUMP or FOLLOW with filter f (copied) in TRACED_FORMAT_* format. */
void traced_pager_dump(struct traced_pager *p, uint32_t op, const struct traced_filter *f,
		       uint32_t format);

/* The predicate (copied) of the DUMP, FOLLOW or BULK p is about to start: as traced_pager_dump().
 */
void traced_pager_pred(struct traced_pager *p, const struct traced_pred *pred);

/*
 * A new BULK dump with filter f (copied): binary pages of up to size
 * bytes (at most TRACED_BULK_MAX) through a frame it creates and maps;
 * traced_pager_next() then gives pages inside that mapping. Returns 0,
 * or -E* from creating or mapping the frame. traced_pager_close() lets
 * go of the frame.
 */
long traced_pager_bulk(struct traced_pager *p, const struct traced_filter *f, size_t size);
void traced_pager_close(struct traced_pager *p);

/* A new STRINGS listing of tag (TTRACE_AUX_*, 0 for all). */
void traced_pager_strings(struct traced_pager *p, uint32_t tag);

/* A new EVENTS listing: the user events. */
void traced_pager_events(struct traced_pager *p);

/*
 * Fetches the next page: its data in *data (*len bytes, inside p, or
 * for BULK in its frame's mapping, until the next call) and its flags
 * (TRACED_DUMP_DONE) in *flags. Returns as traced_request().
 */
long traced_pager_next(struct traced_pager *p, const uint8_t **data, size_t *len, uint32_t *flags);

/*
 * Parses filter words (cpu=N pid=N tid=N tree=N kind=NAME,... cat=NAME,...
 * last=N count=N since=SECONDS until=SECONDS, seconds since boot as the
 * dump's times show them; tree=N is process N and its descendants) for
 * an area of ncpus CPUs into *f. Returns 0,
 * or -EINVAL with one line in why (NUL-terminated, no newline) naming the
 * word that is wrong and what is allowed.
 */
int traced_filter_parse(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			char *why, size_t why_size);

/*
 * traced_filter_parse() that takes `if PREDICATE` after the words too
 * (common/trace_filter.h): its text into *pred (len 0: none), checked
 * against the kinds the words select, so that traced compiles it.
 */
int traced_filter_parse_if(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			   struct traced_pred *pred, char *why, size_t why_size);

/*
 * Writes the filter words traced_filter_parse() takes, as a usage line
 * ("cpu=N pid=N ... until=SECONDS"), NUL-terminated, cut to size.
 */
void traced_filter_usage(char *buf, size_t size);

/* The words of `trace hist` and the names of its measures: traced_words.h. */

/*
 * What a finished dump's losses mean for its question (abi/traced.h
 * LOSSES), as the lines traced puts after a dump's end: nothing when
 * nothing was lost, else a line telling apart the entries that could not
 * have matched from those that may have, and when nothing was found, a
 * line saying what keeps such events. Returns the length it would have
 * (as snprintf), storing what fits, NUL-terminated.
 */
struct traced_losses {
	uint64_t events;  /* events the dump found */
	uint64_t lost;	  /* entries it found lost */
	uint64_t outside; /* of them, those that cannot have matched */
	uint64_t early;	  /* of the others, those gone before it began */
};

size_t traced_losses_format(char *buf, size_t size, const struct traced_losses *l);

/* A new STATS listing of r (copied): its pages come as a DUMP's. */
void traced_pager_stats(struct traced_pager *p, const struct traced_stats_request *r);

/*
 * Parses a category list ("mem,ipc", "all") into *mask. Returns 0, or
 * -EINVAL with why as traced_filter_parse(): "unknown category 'memm'
 * (known: mem sched ... all)".
 */
int traced_categories_parse(const char *list, uint64_t *mask, char *why, size_t why_size);

/*
 * User events (abi/uevent.h), as a program defines and writes its own:
 *
 *	struct trace_uevent ev;
 *	if (!trace_uevent_register("demo u32 n", &ev) && trace_uevent_enabled(&ev))
 *		trace_uevent_write(&ev, &n, sizeof(n));
 *
 * Checking trace_uevent_enabled() costs one load from the status page, no
 * syscall: a program pays for a write only while someone listens.
 */
struct trace_uevent {
	long index;			/* the write index: the capability's slot */
	uint32_t id;			/* the event's byte in the status page */
	const volatile uint8_t *status; /* the status page, mapped read-only */
};

/*
 * Registers the event desc describes with traced (the same event again if
 * it has the same fields) and maps the status page on first use. Returns
 * 0, or -E* as traced_request(): -EADDRINUSE for the name of an event with
 * other fields, -EDQUOT or -ENOSPC for traced's quota, the parser's errors
 * for a bad description.
 */
long trace_uevent_register(const char *desc, struct trace_uevent *ev);

/*
 * Words for an error of trace_uevent_register(): for the refusals of
 * traced's quota (-EDQUOT, -ENOSPC: abi/traced.h, REGISTER) a sentence
 * saying what is full, else strerror's text.
 */
const char *trace_uevent_why(long err);

/* Whether a write of ev would be stored now. */
static inline bool trace_uevent_enabled(const struct trace_uevent *ev)
{
	return ev->status[ev->id] != 0;
}

/* Writes one event: the payload as abi/uevent.h lays it out. 0 or -E*. */
static inline long trace_uevent_write(const struct trace_uevent *ev, const void *payload,
				      size_t len)
{
	return sys_uevent_write(ev->index, payload, len);
}

/* Lets go of ev: the program no longer holds the event. 0 or -E*. */
long trace_uevent_release(struct trace_uevent *ev);

#endif
