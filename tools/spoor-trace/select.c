/*
 * select: a filtered copy of a file's events (see select.h). The first
 * walks of the file learn who spawned whom (for tree=), how many events
 * pass (for last=) and which loss markers stay; the last copies the
 * chosen slots in the file's order.
 */
#include "tools/spoor-trace/select.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_aux.h"
#include "common/trace_names.h"

#define SLOT sizeof(struct ttrace_entry)

/* A set of pids: the tree's. */
struct pids {
	uint32_t *id;
	size_t len, cap;
};

static bool pids_has(const struct pids *p, uint32_t id)
{
	for (size_t i = 0; i < p->len; i++) {
		if (p->id[i] == id) {
			return true;
		}
	}
	return false;
}

/* Appends id to p, whether it holds it or not: 0 or -ENOMEM. */
static int pids_push(struct pids *p, uint32_t id)
{
	if (p->len == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		uint32_t *more = realloc(p->id, cap * sizeof(*more));
		if (!more) {
			return -ENOMEM;
		}
		p->id = more;
		p->cap = cap;
	}
	p->id[p->len++] = id;
	return 0;
}

static int pids_add(struct pids *p, uint32_t id)
{
	return pids_has(p, id) ? 0 : pids_push(p, id);
}

/* Who spawned whom: pairs of (child, parent) at one index of the two arrays. */
struct spawns {
	struct pids child, parent;
};

static int spawn_add(struct spawns *s, uint32_t child, uint32_t parent)
{
	/* A child's line goes in even if it is there: the two arrays stay in step. */
	if (pids_push(&s->child, child)) {
		return -ENOMEM;
	}
	if (pids_push(&s->parent, parent)) {
		s->child.len--;
		return -ENOMEM;
	}
	return 0;
}

/* The spawns the aux PROC records name: their id is pid | parent << 32 (abi/trace.h). */
static int spawns_from_records(struct spawns *s, const uint8_t *d, uint64_t len)
{
	for (uint64_t i = 0; i + sizeof(struct ttrace_aux_record) <= len;) {
		struct ttrace_aux_record r;

		memcpy(&r, d + i, sizeof(r));
		if (r.tag == TTRACE_AUX_PROC &&
		    spawn_add(s, (uint32_t)r.id, (uint32_t)(r.id >> 32))) {
			return -ENOMEM;
		}
		i += TTRACE_AUX_RECORD_SIZE(r.len); /* whole records: tfile_parse() checked them */
	}
	return 0;
}

/* tree's pid and every process spawned from it, however deep. */
static int tree_close(struct pids *tree, const struct spawns *s)
{
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < s->child.len; i++) {
			if (pids_has(tree, s->parent.id[i]) && !pids_has(tree, s->child.id[i])) {
				if (pids_add(tree, s->child.id[i])) {
					return -ENOMEM;
				}
				grew = true;
			}
		}
	}
	return 0;
}

/* A loss marker of the file: its CPU, and whether the copy keeps it. */
struct marker {
	uint32_t cpu;
	bool decided, keep;
};

struct walk {
	struct tview *v;
	const struct ttrace_filter *flt;
	const struct ttrace_filter_pred *pred; /* flt's predicate, compiled; NULL: none */
	struct pids tree;
	struct marker *markers; /* the file's, in its order */
	size_t nmarkers;
};

bool tselect_passes(struct tview *v, const struct ttrace_filter *flt,
		    const struct ttrace_filter_pred *pred, const struct ttrace_record *r,
		    bool in_tree)
{
	const struct traced_filter *f = &flt->f;

	/* The predicate last: it costs the most, and runs only on what the rest kept. */
	return ttrace_filter_match(f, r, in_tree) &&
	       ttrace_filter_in_window(f, tview_ns(v, r->ts)) &&
	       (!flt->has_comm || !strcmp(ttrace_decoder_comm(&v->dec, r->pid), flt->comm)) &&
	       (!pred ||
		ttrace_filter_pred_keeps_record(pred, r, ttrace_decoder_comm(&v->dec, r->pid)));
}

static bool passes(struct walk *w, const struct ttrace_record *r)
{
	return tselect_passes(w->v, w->flt, w->pred, r, pids_has(&w->tree, r->pid));
}

static int tree_make(struct walk *w)
{
	const struct tfile *f = w->v->file;
	struct spawns s = {0};
	struct tfile_iter it;
	struct tfile_item item;

	int err = pids_add(&w->tree, w->flt->f.pid);
	err = err ? err : spawns_from_records(&s, f->durable, f->durable_size);
	err = err ? err : spawns_from_records(&s, f->ring, f->aux_last - f->aux_first);
	tfile_iter_start(&it, f);
	while (!err && tfile_next(&it, &item)) {
		const struct ttrace_record *r = &item.rec;
		if (!item.lost && r->kind == TTRACE_KIND_proc_spawn) {
			err = spawn_add(&s, (uint32_t)r->data[0], (uint32_t)r->data[1]);
		}
	}
	err = err ? err : tree_close(&w->tree, &s);
	free(s.child.id);
	free(s.parent.id);
	return err;
}

/*
 * The first walk: how many events pass (for last=), and which markers
 * stay. A marker is placed at its CPU's next event (LOSS PLACEMENT), so
 * it stays when that event's time is in the window, or, when its CPU
 * has no event after it, when the window has no end.
 */
static int survey(struct walk *w, uint64_t *passing)
{
	const struct traced_filter *f = &w->flt->f;
	size_t first[TTRACE_MAX_CPUS]; /* the CPU's first undecided marker, or SIZE_MAX */
	size_t cap = 0;
	struct tfile_iter it;
	struct tfile_item item;

	*passing = 0;
	memset(first, 0xff, sizeof(first));
	tfile_iter_start(&it, w->v->file);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			if (w->nmarkers == cap) {
				cap = cap ? 2 * cap : 16;
				struct marker *more = realloc(w->markers, cap * sizeof(*more));
				if (!more) {
					return -ENOMEM;
				}
				w->markers = more;
			}
			w->markers[w->nmarkers] = (struct marker){.cpu = item.lost_cpu};
			if (first[item.lost_cpu] == SIZE_MAX) {
				first[item.lost_cpu] = w->nmarkers;
			}
			w->nmarkers++;
			continue;
		}
		const struct ttrace_record *r = &item.rec;
		for (size_t m = first[r->cpu]; m < w->nmarkers; m++) {
			struct marker *k = &w->markers[m];
			if (k->cpu == r->cpu && !k->decided) {
				k->keep = ttrace_filter_cpu(f, r->cpu) &&
					  ttrace_filter_in_window(f, tview_ns(w->v, r->ts));
				k->decided = true;
			}
		}
		first[r->cpu] = SIZE_MAX;
		*passing += passes(w, r);
	}
	for (size_t m = 0; m < w->nmarkers; m++) {
		struct marker *k = &w->markers[m];
		if (!k->decided) {
			k->keep = ttrace_filter_cpu(f, k->cpu) && !(f->flags & TRACED_F_UNTIL);
		}
	}
	return 0;
}

/* Appends the item's slots (an event's head and continuations, or a marker) to out. */
static void put(struct tfile *out, uint8_t *slots, const struct tfile *in,
		const struct tfile_item *item)
{
	const struct ttrace_record *r = &item->rec;
	uint64_t len = item->lost ? SLOT : (1 + (uint64_t)r->ncont) * SLOT;

	memcpy(slots + out->spans[0].size, in->data + item->offset, len);
	out->spans[0].size += len;
	if (item->lost) {
		out->lost += item->lost_count;
		out->cpu_lost[item->lost_cpu] += item->lost_count;
		return;
	}
	out->events++;
	out->cpu_events[r->cpu]++;
	out->cpu_entries[r->cpu] += 1 + r->ncont;
	out->first_ts = out->events == 1 ? r->ts : out->first_ts;
	out->last_ts = r->ts;
}

/* A copy of in's description with no events yet, its one span in span. */
static void start_copy(struct tfile *out, const struct tfile *in, struct tfile_span *span)
{
	*out = *in;
	out->spans = span;
	out->nspans = 1;
	out->ring_own = NULL; /* the file's: freed with it */
	out->events = out->lost = out->first_ts = out->last_ts = 0;
	memset(out->cpu_lost, 0, sizeof(out->cpu_lost));
	memset(out->cpu_events, 0, sizeof(out->cpu_events));
	memset(out->cpu_entries, 0, sizeof(out->cpu_entries));
}

int tselect_make(struct tselect *s, struct tview *v, const struct ttrace_filter *flt,
		 const struct ttrace_filter_pred *pred)
{
	const struct tfile *in = v->file;
	const struct traced_filter *f = &flt->f;
	struct walk w = {.v = v, .flt = flt, .pred = pred};
	struct tfile_iter it;
	struct tfile_item item;
	uint64_t passing, bytes = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < in->nspans; i++) {
		bytes += in->spans[i].size;
	}
	int err = f->flags & TRACED_F_TREE ? tree_make(&w) : 0;
	err = err ? err : survey(&w, &passing);
	s->slots = err ? NULL : malloc(bytes ? bytes : SLOT);
	s->f.spans = s->slots ? calloc(1, sizeof(*s->f.spans)) : NULL;
	if (!s->f.spans) {
		free(w.tree.id);
		free(w.markers);
		free(s->slots);
		memset(s, 0, sizeof(*s));
		return -ENOMEM;
	}
	struct tfile *out = &s->f;
	start_copy(out, in, s->f.spans);
	uint64_t skip = f->flags & TRACED_F_LAST && passing > f->count ? passing - f->count : 0;
	uint64_t limit = f->flags & TRACED_F_COUNT ? f->count : UINT64_MAX;
	size_t m = 0;

	/*
	 * last=N with more than N: what was lost before the first of the last N
	 * cannot have been among them (abi/traced.h, TRACED_CURSOR_FULL).
	 */
	bool cut = skip > 0;

	tfile_iter_start(&it, in);
	while (out->events < limit && tfile_next(&it, &item)) {
		if (item.lost) {
			if (w.markers[m++].keep && !(cut && !out->events)) {
				put(out, s->slots, in, &item);
			}
		} else if (passes(&w, &item.rec)) {
			if (skip) {
				skip--;
			} else {
				put(out, s->slots, in, &item);
			}
		}
	}
	out->data = s->slots;
	out->size = out->spans[0].size;
	out->nspans = out->size ? 1 : 0;
	free(w.tree.id);
	free(w.markers);
	return 0;
}

void tselect_free(struct tselect *s)
{
	free(s->f.spans);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
