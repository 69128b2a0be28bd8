/*
 * dump: DUMP and FOLLOW pages (abi/traced.h): the checks of a request's
 * filter and cursor, the page itself (merge.c makes the stream), and what
 * a follower acknowledges in drop mode. A DUMP is bounded by the heads
 * its first page saw (cursor.end); a FOLLOW has no bound and starts at
 * the heads.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>
#include <trace_client.h>

#include "common/format.h"
#include "common/trace_format.h"
#include "common/trace_names.h"
#include "servers/traced/dump.h"
#include "servers/traced/merge.h"
#include "servers/traced/page.h"
#include "servers/traced/pred.h"
#include "servers/traced/request.h"
#include "servers/traced/scope.h"
#include "servers/traced/state.h"

#define TAIL_MAX 512 /* the end line and what the losses mean: a few lines */

static bool kind_known_bits(const uint64_t *kinds)
{
	for (uint32_t k = 0; k < TRACED_KIND_WORDS * 64; k++) {
		if (kinds[k / 64] >> (k % 64) & 1 && !ttrace_kind_info(k)) {
			return false;
		}
	}
	return true;
}

/* Whether every kind in kinds is in one of the categories cats: else no event passes both. */
static bool kinds_in(const uint64_t *kinds, uint64_t cats)
{
	for (uint32_t k = 0; k < TRACED_KIND_WORDS * 64; k++) {
		if (kinds[k / 64] >> (k % 64) & 1 && !(ttrace_kind_info(k)->category & cats)) {
			return false;
		}
	}
	return true;
}

/*
 * A filter as traced_filter_parse() could have made it: known bits only,
 * values only under their flags, and no two tests that contradict each
 * other (the parser's contradictions(), refused here too so that a
 * program that builds its own filter cannot get what the shell refuses).
 */
static int filter_check(const struct traced_filter *f, bool follow)
{
	uint32_t fl = f->flags;
	bool counted = fl & (TRACED_F_COUNT | TRACED_F_LAST);

	if (fl & ~TRACED_F_ALL || (fl & TRACED_F_COUNT && fl & TRACED_F_LAST) ||
	    (fl & TRACED_F_TREE && !(fl & TRACED_F_PID)) || (follow && fl & TRACED_F_LAST) ||
	    counted != (f->count != 0)) {
		return -EINVAL;
	}
	if (fl & TRACED_F_CATS ? !f->cats || f->cats & ~TTRACE_CAT_ALL : f->cats != 0) {
		return -EINVAL;
	}
	if (fl & TRACED_F_CPUS ? !f->cpus || f->cpus >> traced.ncpus : f->cpus != 0) {
		return -EINVAL;
	}
	bool any_kind = false;
	for (int i = 0; i < TRACED_KIND_WORDS; i++) {
		any_kind |= f->kinds[i] != 0;
	}
	if (fl & TRACED_F_KINDS ? !any_kind || !kind_known_bits(f->kinds) : any_kind) {
		return -EINVAL;
	}
	if (fl & TRACED_F_KINDS && fl & TRACED_F_CATS && !kinds_in(f->kinds, f->cats)) {
		return -EINVAL;
	}
	if ((!(fl & TRACED_F_PID) && f->pid) || (!(fl & TRACED_F_TID) && f->tid) ||
	    (!(fl & TRACED_F_SINCE) && f->since_ns) || (!(fl & TRACED_F_UNTIL) && f->until_ns)) {
		return -EINVAL;
	}
	if (fl & TRACED_F_SINCE && fl & TRACED_F_UNTIL && f->since_ns >= f->until_ns) {
		return -EINVAL;
	}
	return 0;
}

/* A cursor a client sent: zeroed (a new dump), or one traced could have given out. */
static int cursor_check(const struct traced_cursor *c, const struct traced_filter *f, bool follow)
{
	static const struct traced_cursor zero;

	if (!c->magic) {
		return memcmp(c, &zero, sizeof(zero)) ? -EINVAL : 0;
	}
	if (page_cursor_check(c) || follow != !!(c->flags & TRACED_CURSOR_FOLLOW) ||
	    (c->skip && !(f->flags & TRACED_F_LAST)) || (f->count && c->events > f->count) ||
	    (c->flags & TRACED_CURSOR_FULL && !(f->flags & TRACED_F_LAST)) ||
	    c->outside > c->lost || c->early > c->lost - c->outside) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* acquire: pairs with the writer's reservation (abi/trace.h W1) */
		uint64_t head = __atomic_load_n(&traced.ring[i].state->head, __ATOMIC_ACQUIRE);
		if (c->next[i] > head ||
		    (follow ? c->end[i] != 0 : c->end[i] > head || c->next[i] > c->end[i])) {
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Follow in drop mode: the follower has everything below the position its
 * request acknowledges. The tail only moves forward, so no cursor a
 * client sends can pin it and make the writers drop everything; with
 * several followers the furthest one sets it, and the others may find
 * entries reused (counted as lost).
 */
static void publish_tails(const struct traced_cursor *c)
{
	if (__atomic_load_n(&traced.area.hdr->mode, __ATOMIC_RELAXED) != TTRACE_MODE_DROP) {
		return;
	}
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* relaxed: traced is the tail's only writer */
		uint64_t tail = __atomic_load_n(&traced.area.reader->cpu[i].tail, __ATOMIC_RELAXED);
		if (c->next[i] > tail) {
			ttrace_ring_publish_tail(&traced.ring[i], c->next[i]);
		}
	}
}

void dump_losses(struct format_buf *b, const struct traced_cursor *c)
{
	char text[TAIL_MAX];
	const struct traced_losses l = {
	    .events = c->events, .lost = c->lost, .outside = c->outside, .early = c->early};

	traced_losses_format(text, sizeof(text), &l);
	format_buf_printf(b, "%s", text);
}

int dump_check(uint32_t op, const struct traced_filter *f, const struct traced_cursor *c)
{
	bool follow = op == TRACED_OP_FOLLOW;

	return filter_check(f, follow) || cursor_check(c, f, follow) ? -EINVAL : 0;
}

int dump_request(uint32_t op, const struct request *req, struct traced_dump_request *r,
		 struct merge_piece *piece)
{
	if (req->len != sizeof(*r)) {
		return -EINVAL;
	}
	memcpy(r, req->body, sizeof(*r));
	if ((r->format != TRACED_FORMAT_TEXT && r->format != TRACED_FORMAT_BINARY) || r->reserved ||
	    dump_check(op, &r->filter, &r->cursor) ||
	    pred_request(&r->pred, &r->filter, &piece->pred)) {
		return -EINVAL;
	}
	return scope_request(req, &piece->scope);
}

int dump_page(uint32_t op, const struct request *req, struct reply *rep)
{
	struct traced_dump_request r;
	uint8_t *out = rep->buf + sizeof(struct traced_dump_reply);
	struct merge_piece piece = {.out = out, .max = TRACED_PAGE_DATA_MAX};
	int err = dump_request(op, req, &r, &piece);

	if (err) {
		return err;
	}
	/*
	 * What a FOLLOW request acknowledges: the client holds everything
	 * below the cursor it sends (a new one starts at the heads). That,
	 * not where this page ends, is the tail drop mode keeps: if the reply
	 * never reaches the client (traced dies before sending it), the client
	 * sends the same request again and finds the page's entries still
	 * there, neither reused by the writers nor counted lost.
	 */
	if (op == TRACED_OP_FOLLOW && !r.cursor.magic) {
		merge_cursor_start(&r.cursor, true);
	}
	const struct traced_cursor acked = r.cursor;
	uint32_t how = op == TRACED_OP_FOLLOW ? MERGE_FOLLOW : MERGE_DUMP;
	bool done = merge_fill(how, &r.filter, &r.cursor, r.format, &piece);
	if (done && r.format == TRACED_FORMAT_TEXT) {
		char end[TTRACE_LINE_MAX], tail[TAIL_MAX];
		struct format_buf b = format_buf_start(tail, sizeof(tail));
		ttrace_format_end(end, sizeof(end), r.cursor.events, r.cursor.lost);
		format_buf_printf(&b, "%s", end);
		dump_losses(&b, &r.cursor);
		size_t n = b.len < sizeof(tail) ? b.len : sizeof(tail) - 1;
		if (piece.len + n <= piece.max) {
			memcpy(out + piece.len, tail, n);
			piece.len += n;
		} else {
			done = false; /* the next page is just these lines */
		}
	}
	/* A follower that may not read everything does not decide what drop mode keeps. */
	if (op == TRACED_OP_FOLLOW && !piece.scope) {
		publish_tails(&acked);
	}
	page_finish(rep, &r.cursor, done, (uint32_t)piece.len, piece.events);
	return 0;
}
