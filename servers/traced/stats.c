/*
 * stats: STATS (abi/traced.h): counts and latencies over the events a
 * DUMP with the same filter returns. The events come from the dump's own
 * merge (merge_fill, binary) a piece at a time and are folded as they
 * pass into common/trace_stats.h's fixed tables, which spoor-trace folds
 * a saved file into too, so the memory used is the same whatever the
 * window. The text of the answer is made
 * whole on the first page and kept for the pages after it; a page whose
 * request is not the kept answer's (traced restarted, another client
 * asked meanwhile) makes it again, from the rings as they are then.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/format.h"
#include "common/trace_stats.h"
#include "servers/traced/dump.h"
#include "servers/traced/merge.h"
#include "servers/traced/page.h"
#include "servers/traced/pred.h"
#include "servers/traced/request.h"
#include "servers/traced/scope.h"
#include "servers/traced/state.h"
#include "servers/traced/stats.h"

#define PIECE	 65536 /* bytes of merged events folded at a time */
#define TEXT_MAX 32768 /* the answer's text */
#define TAIL_MAX 512   /* the lines that say what the losses mean */

/* The window's counts and latencies (common/trace_stats.h), and what its losses mean. */
static struct ttrace_stats st;
static struct traced_cursor window; /* the dump's cursor at its end */

/* The answer kept for its next pages, and the request it answers. */
static struct {
	bool valid;
	struct traced_stats_request req; /* with the cursor the first page was given */
	char text[TEXT_MAX];
	size_t len;
} kept;

/* Folds a piece of a binary dump: events and loss markers. */
static void fold_piece(const uint8_t *data, size_t len)
{
	const union ttrace_slot *s = (const union ttrace_slot *)data;

	for (size_t i = 0; i < len / sizeof(*s);) {
		const struct ttrace_entry *e = &s[i].e;
		if (e->kind == TRACED_KIND_LOST && !e->ts) {
			ttrace_stats_lost(&st, e->data[0]);
			i++;
			continue;
		}
		ttrace_stats_event(&st, e);
		i += 1 + TTRACE_NCONT_OF(e->ctx);
	}
}

/*
 * Runs the window through the tables. Each piece is full, or the last:
 * the merge waits out (or skips) writes in progress itself.
 */
static void compute(const struct traced_stats_request *r, const struct scope *scope,
		    const struct ttrace_filter_pred *pred)
{
	static uint8_t piece_buf[PIECE];
	struct traced_cursor c = {0};
	bool done = false;

	ttrace_stats_start(&st, traced.area.hdr);
	while (!done) {
		struct merge_piece piece = {
		    .out = piece_buf, .max = sizeof(piece_buf), .scope = scope, .pred = pred};
		done = merge_fill(MERGE_DUMP, &r->filter, &c, TRACED_FORMAT_BINARY, &piece);
		fold_piece(piece_buf, piece.len);
	}
	ttrace_stats_finish(&st); /* first halves the window ends before their second */
	window = c;
	st.outside = c.outside;
	st.early = c.early;
}

/*
 * "# filtered N events (cpu 0 A, cpu 1 B): ..." when the kernel's
 * filters rejected any: the ledger's part that no ring ever held
 * (abi/trace.h, ACCOUNTING), never counted lost.
 */
static void filtered_line(struct format_buf *out)
{
	uint64_t total = 0, each[TTRACE_MAX_CPUS] = {0};

	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct ttrace_counts c;
		ttrace_ring_counts(&traced.ring[i], &c);
		each[i] = c.filtered;
		total += c.filtered;
	}
	if (!total) {
		return;
	}
	format_buf_printf(out, "# filtered %llu events (", (unsigned long long)total);
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		format_buf_printf(out, "%scpu %u %llu", i ? ", " : "", i,
				  (unsigned long long)each[i]);
	}
	format_buf_printf(out, "): rejected by filters before the rings, not lost\n");
}

/* Whether request r asks for what kept holds: the same question from the same window. */
static bool same_question(const struct traced_stats_request *r)
{
	struct traced_stats_request a = *r, b = kept.req;

	a.cursor.next[0] = b.cursor.next[0] = 0;
	return kept.valid && !memcmp(&a, &b, sizeof(a));
}

static int check(const struct traced_stats_request *r)
{
	if (r->reserved || r->form > TRACED_STATS_HIST ||
	    (r->form == TRACED_STATS_HIST) != (r->measure != 0) ||
	    r->measure >= TRACED_MEASURE_LIMIT || r->path >= TRACED_PATH_LIMIT ||
	    (r->form != TRACED_STATS_HIST && (r->key || r->path))) {
		return -EINVAL;
	}
	static const struct traced_cursor zero;
	return dump_check(TRACED_OP_DUMP, &r->filter, &zero);
}

int stats_page(const struct request *req, struct reply *rep)
{
	struct traced_stats_request r;
	const struct scope *scope;
	const struct ttrace_filter_pred *pred;

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (check(&r) || page_listing_check(&r.cursor, TEXT_MAX, 0) ||
	    pred_request(&r.pred, &r.filter, &pred)) {
		return -EINVAL;
	}
	int err = scope_request(req, &scope);
	if (err) {
		return err;
	}
	if (!r.cursor.magic || !same_question(&r)) {
		compute(&r, scope, pred);
		char losses[TAIL_MAX];
		struct format_buf tail = format_buf_start(losses, sizeof(losses));
		struct format_buf out = format_buf_start(kept.text, sizeof(kept.text));
		dump_losses(&tail, &window);
		filtered_line(&tail);
		if (r.form == TRACED_STATS_HIST) {
			ttrace_stats_print_hist(&st, &out, &r, losses);
		} else {
			ttrace_stats_print(&st, &out, &r.filter, r.form == TRACED_STATS_KV,
					   &traced.decoder, losses);
		}
		kept.len = out.len < sizeof(kept.text) ? out.len : sizeof(kept.text) - 1;
		kept.req = r;
		kept.valid = true;
	}
	uint64_t at = r.cursor.magic ? r.cursor.next[0] : 0;
	if (at > kept.len) {
		return -EINVAL;
	}
	/* A page ends at a line's end, so no line is cut between two. */
	size_t n = kept.len - at < TRACED_PAGE_DATA_MAX ? kept.len - at : TRACED_PAGE_DATA_MAX;
	while (at + n < kept.len && n && kept.text[at + n - 1] != '\n') {
		n--;
	}
	memcpy(rep->buf + sizeof(struct traced_dump_reply), kept.text + at, n);
	page_listing_at(&r.cursor, at + n);
	kept.req.cursor = r.cursor;
	page_finish(rep, &r.cursor, at + n == kept.len, (uint32_t)n, 0);
	return 0;
}
