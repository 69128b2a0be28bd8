/*
 * extract: a frozen trace area as a trace file (extract.h).
 */
#include "tools/spoor-postmortem/extract.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/trace_file.h"
#include "common/fnv.h"
#include "common/trace_aux.h"
#include "common/trace_ring.h"

#define EVENTS_SECTION_MAX (1024 * 1024) /* one EVENTS section's payload, as traced's saves */

/* One event of a CPU and the entries its reader skipped as lost just before it. */
struct item {
	struct ttrace_record rec;
	uint64_t lost_before;
};

/* One CPU's events, read in full; tail_lost: skipped after the last. */
struct cpu_events {
	struct item *items;
	size_t n, cap;
	uint64_t tail_lost;
	uint64_t lost;
};

/* The file as it grows. */
struct out {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void put(struct out *o, const void *data, size_t len)
{
	if (o->err) {
		return;
	}
	if (o->len + len > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 16;
		while (cap < o->len + len) {
			cap *= 2;
		}
		uint8_t *b = realloc(o->buf, cap);
		if (!b) {
			o->err = -ENOMEM;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
}

static void put_section(struct out *o, uint32_t type, uint64_t size)
{
	struct ttrace_file_section s = {.type = type, .size = size};

	put(o, &s, sizeof(s));
}

/*
 * Reads CPU r's events from 0 to its head h, one at a time so each
 * knows the loss just before it. A slot that stays half written in the
 * frozen copy stops the reader below h: it is skipped as lost.
 */
static int read_cpu(const struct ttrace_ring *r, uint64_t h, struct cpu_events *ce, uint32_t *stuck,
		    uint64_t *corrupt)
{
	struct ttrace_cursor c;
	uint64_t seen_lost = 0;

	ttrace_cursor_init(&c, 0);
	c.end = h;
	while (c.index < h) {
		struct ttrace_record rec;
		if (!ttrace_ring_read(r, &c, &rec, 1)) {
			/* frozen memory: nothing to wait for (common/trace_ring.h) */
			uint64_t before = c.stuck;
			if (ttrace_ring_wait(r, &c, 0, 0) != TTRACE_WAIT_SKIPPED) {
				break;
			}
			*stuck += (uint32_t)(c.stuck - before);
			continue;
		}
		/*
		 * The reader validated the slots as the protocol says, but a dump
		 * may be corrupt: an entry naming another CPU, a ts no writer
		 * stores or the kind of a file's loss marker is counted lost,
		 * not written.
		 */
		if (rec.cpu != r->cpu || rec.ts >> 63 || rec.kind == TRACED_KIND_LOST) {
			c.lost += 1 + rec.ncont;
			*corrupt += 1 + rec.ncont;
			continue;
		}
		if (ce->n == ce->cap) {
			size_t cap = ce->cap ? ce->cap * 2 : 1024;
			struct item *it = realloc(ce->items, cap * sizeof(*it));
			if (!it) {
				return -ENOMEM;
			}
			ce->items = it;
			ce->cap = cap;
		}
		ce->items[ce->n++] = (struct item){.rec = rec, .lost_before = c.lost - seen_lost};
		seen_lost = c.lost;
	}
	ce->tail_lost = c.lost - seen_lost;
	ce->lost = c.lost;
	return 0;
}

/* The marker slot for n entries lost on cpu (abi/trace_file.h EVENTS). */
static void put_lost(struct out *o, uint32_t cpu, uint64_t n)
{
	union ttrace_slot s = {
	    .e = {.kind = TRACED_KIND_LOST, .cpu = (uint8_t)cpu, .data = {n}},
	};

	put(o, &s, sizeof(s));
}

/* The event as the ring held it: its head entry, then its continuations. */
static void put_event(struct out *o, const struct ttrace_record *r)
{
	union ttrace_slot s[1 + TTRACE_CONT_MAX];

	memset(s, 0, sizeof(s));
	s[0].e.ts = r->ts;
	s[0].e.seq = (uint32_t)r->index;
	s[0].e.kind = r->kind;
	s[0].e.cpu = r->cpu;
	s[0].e.ctx = TTRACE_CTX_MAKE(r->ctx, r->ncont);
	s[0].e.pid = r->pid;
	s[0].e.tid = r->tid;
	memcpy(s[0].e.data, r->data, sizeof(s[0].e.data));
	for (uint32_t j = 1; j <= r->ncont; j++) {
		s[j].c.ts = r->ts | TTRACE_TS_CONT;
		memcpy(s[j].c.data, &r->data[TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS],
		       sizeof(s[j].c.data));
	}
	put(o, s, sizeof(s[0]) * (1 + r->ncont));
}

/*
 * The EVENTS sections: the oldest of the CPUs' next events each time (the
 * lowest CPU on a tie), its loss marker first; a CPU's loss after its
 * last event once it has no more. Sections are closed before they pass
 * EVENTS_SECTION_MAX, never inside an event.
 */
static void put_events(struct out *o, struct cpu_events *ce, uint32_t ncpus, uint64_t *events)
{
	size_t next[TTRACE_MAX_CPUS] = {0};
	size_t section = o->len; /* where the open section's head is */
	const size_t most = sizeof(union ttrace_slot) * (2 + TTRACE_CONT_MAX);

	put_section(o, TTRACE_FILE_EVENTS, 0);
	for (;;) {
		int best = -1;
		for (uint32_t i = 0; i < ncpus; i++) {
			if (next[i] < ce[i].n &&
			    (best < 0 ||
			     ce[i].items[next[i]].rec.ts < ce[best].items[next[best]].rec.ts)) {
				best = (int)i;
			}
		}
		if (best < 0) {
			break;
		}
		if (!o->err && o->len - section - sizeof(struct ttrace_file_section) + most >
				   EVENTS_SECTION_MAX) {
			((struct ttrace_file_section *)(o->buf + section))->size =
			    o->len - section - sizeof(struct ttrace_file_section);
			section = o->len;
			put_section(o, TTRACE_FILE_EVENTS, 0);
		}
		const struct item *it = &ce[best].items[next[best]++];
		if (it->lost_before) {
			put_lost(o, (uint32_t)best, it->lost_before);
		}
		put_event(o, &it->rec);
		(*events)++;
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		if (ce[i].tail_lost) {
			put_lost(o, i, ce[i].tail_lost);
		}
	}
	if (!o->err) {
		((struct ttrace_file_section *)(o->buf + section))->size =
		    o->len - section - sizeof(struct ttrace_file_section);
	}
}

/*
 * The end of the records of v that are whole, from v->next: a corrupt
 * dump's aux bytes are cut at the first that is not a record, counting
 * the bytes cut in *cut.
 */
static uint64_t whole_records(struct ttrace_aux_view v, uint64_t *cut)
{
	struct ttrace_aux_record rec;
	const char *str;
	uint64_t end = v.next;
	int rc;

	while ((rc = ttrace_aux_next(&v, &rec, &str)) > 0) {
		end = v.next;
	}
	*cut += v.end - end;
	return end;
}

static int put_aux(struct out *o, const struct ttrace_area *a, uint64_t *cut, char *why,
		   size_t why_size)
{
	const struct ttrace_header *h = a->hdr;
	struct ttrace_aux_view v;

	ttrace_aux_durable(a, &v);
	if (v.end > h->aux_durable_size) {
		snprintf(why, why_size, "aux_durable_end %llu is past aux_durable_size %llu",
			 (unsigned long long)v.end, (unsigned long long)h->aux_durable_size);
		return -1;
	}
	uint64_t durable = whole_records(v, cut);
	put_section(o, TTRACE_FILE_AUX_DURABLE, durable);
	put(o, a->aux, durable);

	size_t size = h->aux_ring_size;
	uint64_t *copy = malloc(size);
	if (!copy || ttrace_aux_snapshot(a, copy, size, &v)) {
		free(copy);
		snprintf(why, why_size, "the aux ring cannot be copied (first %llu, last %llu)",
			 (unsigned long long)h->aux_first, (unsigned long long)h->aux_last);
		return -1;
	}
	/* A corrupt aux_first: no record can be trusted to start anywhere, so none is kept. */
	if (v.next % 8 || v.next < h->aux_durable_size) {
		*cut += v.end - v.next;
		v.next = v.end = h->aux_durable_size;
	}
	uint64_t last = whole_records(v, cut);
	struct ttrace_file_aux_ring ring = {.first = v.next, .last = last};
	put_section(o, TTRACE_FILE_AUX_RING, sizeof(ring) + (last - v.next));
	put(o, &ring, sizeof(ring));
	put(o, (const uint8_t *)v.words + (v.next - v.start), last - v.next);
	free(copy);
	return 0;
}

/* The latest event's time in ns since boot: when the machine was last seen tracing. */
static uint64_t last_ns(const struct ttrace_header *h, const struct cpu_events *ce, uint32_t ncpus)
{
	uint64_t ts = h->boot_tsc;

	for (uint32_t i = 0; i < ncpus; i++) {
		if (ce[i].n && ce[i].items[ce[i].n - 1].rec.ts > ts) {
			ts = ce[i].items[ce[i].n - 1].rec.ts;
		}
	}
	return h->tsc_hz
		   ? (uint64_t)((unsigned __int128)(ts - h->boot_tsc) * 1000000000u / h->tsc_hz)
		   : 0;
}

int extract_file(const struct ttrace_area *a, struct extract_result *res, char *why,
		 size_t why_size)
{
	const struct ttrace_header *h = a->hdr;
	uint32_t ncpus = h->num_cpus;
	struct cpu_events ce[TTRACE_MAX_CPUS] = {0};
	struct ttrace_counts counts[TTRACE_MAX_CPUS];
	struct out o = {0};
	int rc = -1;

	*res = (struct extract_result){0};
	for (uint32_t i = 0; i < ncpus; i++) {
		struct ttrace_ring r;
		ttrace_ring_get(&r, a, i);
		if (ttrace_ring_counts(&r, &counts[i])) {
			res->partial = 1;
		}
		if (read_cpu(&r, counts[i].head, &ce[i], &res->stuck, &res->corrupt)) {
			snprintf(why, why_size, "out of memory for cpu %u's events", i);
			goto out;
		}
	}
	struct ttrace_file_header fh = {
	    .magic = TTRACE_FILE_MAGIC,
	    .version_major = TTRACE_FILE_VERSION_MAJOR,
	    .version_minor = TTRACE_FILE_VERSION_MINOR,
	    .header_size = sizeof(fh),
	    .num_cpus = ncpus,
	    .tsc_hz = h->tsc_hz,
	    .boot_tsc = h->boot_tsc,
	    .aux_durable_size = h->aux_durable_size,
	    .aux_ring_size = h->aux_ring_size,
	    .mask = h->mask,
	    .mode = h->mode,
	    .ring_entries = h->ring_entries,
	    .trace_version_major = h->version_major,
	    .trace_version_minor = h->version_minor,
	    .entry_size = TTRACE_ENTRY_SIZE,
	    .saved_ns = last_ns(h, ce, ncpus),
	};
	put(&o, &fh, sizeof(fh));
	put_events(&o, ce, ncpus, &res->events);
	if (put_aux(&o, a, &res->aux_cut, why, why_size)) {
		goto out;
	}
	put_section(&o, TTRACE_FILE_LEDGER, sizeof(struct ttrace_file_ledger) * ncpus);
	for (uint32_t i = 0; i < ncpus; i++) {
		struct ttrace_file_ledger l = {
		    /* the file's ledger has no filtered (abi/trace_file.h): what reached the ring
		     */
		    .emitted = counts[i].emitted - counts[i].filtered,
		    .stored = counts[i].stored,
		    .overwritten = counts[i].overwritten,
		    .dropped = counts[i].dropped,
		    .cleared = counts[i].cleared,
		    .lost = ce[i].lost,
		};
		put(&o, &l, sizeof(l));
		res->lost += ce[i].lost;
	}
	if (o.err) {
		snprintf(why, why_size, "out of memory for the file");
		goto out;
	}
	struct ttrace_file_end end = {
	    .events = res->events,
	    .lost = res->lost,
	    .checksum = ttrace_sum_words(TTRACE_FNV_OFFSET, o.buf, o.len),
	};
	put_section(&o, TTRACE_FILE_END, sizeof(end));
	put(&o, &end, sizeof(end));
	if (o.err) {
		snprintf(why, why_size, "out of memory for the file");
		goto out;
	}
	res->bytes = o.buf;
	res->len = o.len;
	o.buf = NULL;
	rc = 0;
out:
	free(o.buf);
	for (uint32_t i = 0; i < ncpus; i++) {
		free(ce[i].items);
	}
	return rc;
}
