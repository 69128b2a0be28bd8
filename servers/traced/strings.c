/*
 * strings: STRINGS pages (abi/traced.h), the aux buffer's records as
 * lines: first the durable part (syscall and kind names), then a
 * consistent snapshot of the aux ring. The cursor's next[0] is the
 * position of the next record to list, so pages go on across new records
 * and restarts; records evicted between two pages are reported, not
 * skipped silently.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "common/format.h"
#include "common/trace_aux.h"
#include "common/trace_names.h"
#include "servers/traced/page.h"
#include "servers/traced/request.h"
#include "servers/traced/state.h"
#include "servers/traced/strings.h"

struct listing {
	uint32_t tag;
	uint64_t pos; /* list records from here */
	char *out;
	size_t len, max;
	uint32_t count;
};

/* Lists view v's records at or after l->pos; false when the page is full. */
static bool list(struct listing *l, struct ttrace_aux_view *v)
{
	struct ttrace_aux_record rec;
	const char *str;

	while (ttrace_aux_next(v, &rec, &str) == 1) {
		if (rec.pos < l->pos || (l->tag && rec.tag != l->tag)) {
			continue;
		}
		char line[TTRACE_AUX_LEN_MAX + 64];
		const char *tag = ttrace_aux_tag_name(rec.tag, false);
		/* A process's id packs its pid and its parent's (abi/trace.h): shown apart. */
		int n = rec.tag == TTRACE_AUX_PROC
			    ? format_snprintf(line, sizeof(line), "%s %u ppid=%u ", tag,
					      (uint32_t)rec.id, (uint32_t)(rec.id >> 32))
			    : format_snprintf(line, sizeof(line), "%s %llu ", tag ? tag : "tag?",
					      (unsigned long long)rec.id);
		for (uint32_t i = 0; i < rec.len; i++) {
			/* A name must not break the line or the terminal. */
			line[n++] = str[i] >= ' ' && str[i] < 0x7f ? str[i] : '?';
		}
		line[n++] = '\n';
		if (l->len + (size_t)n > l->max) {
			l->pos = rec.pos;
			return false;
		}
		memcpy(l->out + l->len, line, (size_t)n);
		l->len += (size_t)n;
		l->count++;
	}
	/* Past the view, never back: the durable pass must not undo a position in the ring. */
	if (l->pos < v->end) {
		l->pos = v->end;
	}
	return true;
}

static bool note(struct listing *l, const char *text)
{
	size_t n = strlen(text);

	if (l->len + n > l->max) {
		return false;
	}
	memcpy(l->out + l->len, text, n);
	l->len += n;
	return true;
}

int strings_page(const struct request *req, struct reply *rep)
{
	struct traced_strings_request r;
	const struct ttrace_header *h = traced.area.hdr;
	struct ttrace_aux_view v;

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (r.reserved || r.tag >= TTRACE_AUX_TAG_LIMIT) {
		return -EINVAL;
	}
	/* acquire: pairs with the aux writer's release store of aux_last (AW3) */
	uint64_t last = __atomic_load_n(&h->aux_last, __ATOMIC_ACQUIRE);
	if (page_listing_check(&r.cursor, last, last)) {
		return -EINVAL;
	}
	if (!r.cursor.magic) {
		/* The ring's oldest record when the listing began: what it promises to list. */
		r.cursor.end[0] = __atomic_load_n(&h->aux_first, __ATOMIC_ACQUIRE);
	}
	struct listing l = {
	    .tag = r.tag,
	    .pos = r.cursor.next[0],
	    .out = (char *)rep->buf + sizeof(struct traced_dump_reply),
	    .max = TRACED_PAGE_DATA_MAX,
	};
	bool done = false;
	ttrace_aux_durable(&traced.area, &v);
	if (list(&l, &v)) {
		int err =
		    ttrace_aux_snapshot(&traced.area, traced.aux_copy, traced.aux_copy_size, &v);
		if (err) {
			return err;
		}
		if (l.pos < r.cursor.end[0]) {
			l.pos = r.cursor.end[0];
		}
		/*
		 * Records the listing promised were evicted before this page
		 * could copy them (v.next: the first intact record of the copy).
		 */
		if (l.pos < v.next) {
			uint64_t resume = l.pos;
			l.pos = v.next;
			if (note(&l, "# some strings were evicted while listing\n")) {
				done = list(&l, &v);
			} else {
				l.pos = resume; /* the page is full: the note comes next time */
			}
		} else {
			done = list(&l, &v);
		}
	}
	page_listing_at(&r.cursor, l.pos);
	page_finish(rep, &r.cursor, done, (uint32_t)l.len, l.count);
	return 0;
}
