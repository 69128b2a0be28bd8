/*
 * view: the synthesized trace area a decoder reads (see view.h), and the
 * names of processes and threads gathered from the file. Error numbers
 * here are the project's (abi/errno.h), as common/ returns them.
 */
#include "tools/spoor-trace/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "common/trace_aux.h"
#include "common/trace_format.h"
#include "common/trace_names.h"

#define NS_PER_S 1000000000ull

struct tview_name {
	uint32_t id;
	uint8_t thread; /* a tid, else a pid */
	uint8_t named;
	uint8_t seen; /* it wrote events */
	uint32_t pid; /* a thread's */
	char name[TVIEW_NAME_MAX + 1];
};

int tview_init(struct tview *v, const struct tfile *f)
{
	const struct ttrace_file_header *fh = &f->hdr;
	uint64_t durable = fh->aux_durable_size;
	uint64_t mask = f->aux_span - 1; /* a recording's ring copy may pass aux_ring_size */

	memset(v, 0, sizeof(*v));
	v->file = f;
	v->hdr = (struct ttrace_header){
	    .magic = TTRACE_MAGIC,
	    .version_major = fh->trace_version_major,
	    .version_minor = fh->trace_version_minor,
	    .shared_layout = TTRACE_SHARED_LAYOUT,
	    .cpu_layout = TTRACE_CPU_LAYOUT,
	    .header_size = sizeof(struct ttrace_header),
	    .num_cpus = fh->num_cpus,
	    .entry_size = fh->entry_size,
	    .ring_entries = fh->ring_entries,
	    .cont_max = TTRACE_CONT_MAX,
	    .tsc_hz = fh->tsc_hz,
	    .boot_tsc = fh->boot_tsc,
	    .aux_durable_size = durable,
	    .aux_ring_size = f->aux_span,
	    .aux_mask = mask,
	    .mask = fh->mask,
	    .mode = fh->mode,
	    .aux_durable_end = f->durable_size,
	    .aux_first = f->aux_first,
	    .aux_last = f->aux_last,
	};
	v->area.hdr = &v->hdr;
	v->area.hdr_len = sizeof(v->hdr);
	v->area.aux_len = durable + f->aux_span;
	v->area.aux = calloc(1, v->area.aux_len);
	v->uevents = calloc(UEVENT_MAX, sizeof(*v->uevents));
	if (!v->area.aux || !v->uevents) {
		tview_fini(v);
		return -ENOMEM;
	}
	uint8_t *aux = (uint8_t *)v->area.aux;
	/* A recording cut before its first chunk has no durable part at all (durable NULL). */
	if (f->durable_size) {
		memcpy(aux, f->durable, f->durable_size);
	}
	/* Whole words: positions are 8-byte aligned and the ring a power of two of pages. */
	for (uint64_t p = f->aux_first; p < f->aux_last; p += 8) {
		memcpy(aux + durable + ((p - durable) & mask), f->ring + (p - f->aux_first), 8);
	}
	ttrace_decoder_init(&v->dec, &v->area, v->uevents);
	return 0;
}

void tview_fini(struct tview *v)
{
	free(v->area.aux);
	free(v->uevents);
	free(v->names);
	free(v->names_index);
	memset(v, 0, sizeof(*v));
}

size_t tview_line(struct tview *v, const struct ttrace_record *rec, char *buf)
{
	int len = ttrace_format_event(buf, TTRACE_LINE_MAX, rec, &v->dec);

	/* As traced: a line that did not fit keeps what did. */
	return (size_t)len < TTRACE_LINE_MAX ? (size_t)len : TTRACE_LINE_MAX - 1;
}

uint64_t tview_ns(const struct tview *v, uint64_t ts)
{
	const struct ttrace_header *h = &v->hdr;

	if (!h->tsc_hz) {
		return ts;
	}
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;
	unsigned __int128 ns = (unsigned __int128)d * NS_PER_S / h->tsc_hz;

	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static size_t hash(uint32_t id, int thread, size_t cap)
{
	uint64_t h = ((uint64_t)id << 1 | (uint64_t)thread) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static struct tview_name *name_find(const struct tview *v, uint32_t id, int thread)
{
	if (!v->names_cap) {
		return NULL;
	}
	for (size_t i = hash(id, thread, v->names_cap);; i = (i + 1) & (v->names_cap - 1)) {
		size_t n = v->names_index[i];
		if (!n) {
			return NULL;
		}
		struct tview_name *e = &v->names[n - 1];
		if (e->id == id && e->thread == thread) {
			return e;
		}
	}
}

/* The entry of id, added if new; NULL when out of memory. */
static struct tview_name *name_get(struct tview *v, uint32_t id, int thread)
{
	struct tview_name *e = name_find(v, id, thread);

	if (e) {
		return e;
	}
	if (2 * (v->names_len + 1) > v->names_cap) {
		size_t cap = v->names_cap ? 2 * v->names_cap : 64;
		struct tview_name *names = realloc(v->names, cap / 2 * sizeof(*names));
		size_t *index = calloc(cap, sizeof(*index));
		if (!names || !index) {
			free(index);
			if (names) {
				v->names = names;
			}
			return NULL;
		}
		v->names = names;
		free(v->names_index);
		v->names_index = index;
		v->names_cap = cap;
		for (size_t n = 0; n < v->names_len; n++) {
			size_t i = hash(v->names[n].id, v->names[n].thread, cap);
			while (v->names_index[i]) {
				i = (i + 1) & (cap - 1);
			}
			v->names_index[i] = n + 1;
		}
	}
	size_t i = hash(id, thread, v->names_cap);
	while (v->names_index[i]) {
		i = (i + 1) & (v->names_cap - 1);
	}
	e = &v->names[v->names_len];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->thread = (uint8_t)thread;
	v->names_index[i] = ++v->names_len;
	return e;
}

/* Names len bytes of str, with what is not printable ASCII as '?'. */
static int name_set(struct tview *v, uint32_t id, int thread, const char *str, size_t len)
{
	struct tview_name *e = name_get(v, id, thread);

	if (!e) {
		return -ENOMEM;
	}
	len = len < TVIEW_NAME_MAX ? len : TVIEW_NAME_MAX;
	for (size_t i = 0; i < len; i++) {
		e->name[i] = str[i] >= ' ' && str[i] <= '~' ? str[i] : '?';
	}
	e->name[len] = '\0';
	e->named = 1;
	return 0;
}

/* Names from the PROC and THREAD records of the len record bytes at d, from position pos. */
static int names_from_records(struct tview *v, const uint8_t *d, uint64_t len)
{
	for (uint64_t i = 0; i + sizeof(struct ttrace_aux_record) <= len;) {
		struct ttrace_aux_record r;

		memcpy(&r, d + i, sizeof(r));
		/* A spawn record's id is pid | parent << 32 (abi/trace.h); a thread's, its tid. */
		if ((r.tag == TTRACE_AUX_PROC ||
		     (r.tag == TTRACE_AUX_THREAD && r.id <= UINT32_MAX)) &&
		    name_set(v, (uint32_t)r.id, r.tag == TTRACE_AUX_THREAD,
			     (const char *)d + i + sizeof(r), r.len)) {
			return -ENOMEM;
		}
		i += TTRACE_AUX_RECORD_SIZE(r.len); /* whole records: tfile_parse() checked them */
	}
	return 0;
}

int tview_names(struct tview *v)
{
	const struct tfile *f = v->file;
	struct tfile_iter it;
	struct tfile_item item;

	if (names_from_records(v, f->durable, f->durable_size) ||
	    names_from_records(v, f->ring, f->aux_last - f->aux_first)) {
		return -ENOMEM;
	}
	tfile_iter_start(&it, f);
	while (tfile_next(&it, &item)) {
		const struct ttrace_record *r = &item.rec;
		if (item.lost) {
			continue;
		}
		struct tview_name *t = name_get(v, r->tid, 1);
		struct tview_name *p = t ? name_get(v, r->pid, 0) : NULL;
		if (!p) {
			return -ENOMEM;
		}
		t = name_find(v, r->tid, 1); /* name_get() may have moved it */
		t->pid = r->pid;
		t->seen = p->seen = 1;
		if (r->kind == TTRACE_KIND_proc_spawn && r->data[0] <= UINT32_MAX) {
			struct ttrace_aux_record rec;
			char s[TVIEW_NAME_MAX + 1];
			int len = ttrace_aux_lookup(&v->area, r->data[2], &rec, s, sizeof(s));
			if (len >= 0 && name_set(v, (uint32_t)r->data[0], 0, s, strlen(s))) {
				return -ENOMEM;
			}
		}
	}
	return 0;
}

const char *tview_proc_name(const struct tview *v, uint32_t pid)
{
	const struct tview_name *e = name_find(v, pid, 0);

	return e && e->named ? e->name : NULL;
}

const char *tview_thread_name(const struct tview *v, uint32_t tid)
{
	const struct tview_name *e = name_find(v, tid, 1);

	return e && e->named ? e->name : NULL;
}

uint32_t tview_thread_pid(const struct tview *v, uint32_t tid)
{
	const struct tview_name *e = name_find(v, tid, 1);

	return e && e->seen ? e->pid : 0;
}

void tview_each(const struct tview *v, int threads, void (*fn)(void *ctx, uint32_t id), void *ctx)
{
	for (size_t n = 0; n < v->names_len; n++) {
		if (v->names[n].thread == threads && v->names[n].seen) {
			fn(ctx, v->names[n].id);
		}
	}
}
