/*
 * file_parse: the checks both kinds of trace file share (file_parse.h):
 * the section heads, the events, the aux records, the ledger and the END
 * totals. file.c walks a saved trace and chunks.c a recording's chunks
 * with them. Every field is copied out with memcpy, never read through a
 * cast pointer: the bytes are untrusted and may be misaligned until their
 * section is checked.
 */
#include "tools/spoor-trace/file_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "common/trace_filter_pred.h"

const char *tparse_section_name(uint32_t t)
{
	static const char *const names[] = {
	    [TTRACE_FILE_EVENTS] = "EVENTS",
	    [TTRACE_FILE_AUX_DURABLE] = "AUX_DURABLE",
	    [TTRACE_FILE_AUX_RING] = "AUX_RING",
	    [TTRACE_FILE_LEDGER] = "LEDGER",
	    [TTRACE_FILE_END] = "END",
	    [TTRACE_FILE_CHUNK] = "CHUNK",
	    [TTRACE_FILE_CPU_EVENTS] = "CPU_EVENTS",
	    [TTRACE_FILE_PREDICATE] = "PREDICATE",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

const char *tparse_article(uint32_t t)
{
	return t == TTRACE_FILE_LEDGER || t == TTRACE_FILE_CHUNK || t == TTRACE_FILE_CPU_EVENTS ||
		       t == TTRACE_FILE_PREDICATE
		   ? "a"
		   : "an";
}

int tparse_refuse(struct parser *p, uint64_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->why_size) {
		return -EINVAL;
	}
	n = snprintf(p->why, p->why_size, "byte %llu: ", (unsigned long long)at);
	if (n >= 0 && (size_t)n < p->why_size) {
		va_start(ap, fmt);
		vsnprintf(p->why + n, p->why_size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

uint64_t tparse_sum(struct parser *p, uint64_t to)
{
	p->sum = ttrace_file_sum(p->f->hdr.version_minor, p->sum, p->d + p->hashed, to - p->hashed);
	p->hashed = to;
	return p->sum;
}

int tparse_section_head(struct parser *p, uint64_t off, bool ended, struct ttrace_file_section *s)
{
	if (ended) {
		return tparse_refuse(p, off, "%llu bytes follow the END section",
				     (unsigned long long)(p->size - off));
	}
	if (p->size - off < HEAD_SIZE) {
		p->f->cut = true;
		return tparse_refuse(p, off,
				     "the file ends inside a section head (%llu of %zu bytes)",
				     (unsigned long long)(p->size - off), HEAD_SIZE);
	}
	memcpy(s, p->d + off, sizeof(*s));
	return 0;
}

static int add_span(struct tfile *f, uint64_t offset, uint64_t size)
{
	if (!size) {
		return 0;
	}
	struct tfile_span *s = realloc(f->spans, (f->nspans + 1) * sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	f->spans = s;
	f->spans[f->nspans++] = (struct tfile_span){.offset = offset, .size = size};
	return 0;
}

/* A loss marker's slot at offset o. */
static int parse_marker(struct parser *p, uint64_t o, const struct ttrace_entry *e)
{
	struct tfile *f = p->f;
	uint64_t n = e->data[0];

	if (e->ts) {
		return tparse_refuse(p, o, "a loss marker with ts 0x%llx, not 0",
				     (unsigned long long)e->ts);
	}
	if (e->ctx) {
		return tparse_refuse(p, o + offsetof(struct ttrace_entry, ctx),
				     "a loss marker with ctx 0x%02x, not 0", e->ctx);
	}
	if (e->cpu >= f->hdr.num_cpus) {
		return tparse_refuse(p, o + offsetof(struct ttrace_entry, cpu),
				     "a loss marker for cpu %u; the file has %u cpus", e->cpu,
				     f->hdr.num_cpus);
	}
	if (f->lost + n < f->lost) {
		return tparse_refuse(p, o + offsetof(struct ttrace_entry, data),
				     "the loss markers add up past 2^64 entries");
	}
	f->lost += n;
	f->cpu_lost[e->cpu] += n;
	return 0;
}

/* The event whose head slot is at o, before end; sets *slots to the slots it takes. */
static int parse_event(struct parser *p, uint64_t o, uint64_t end, const struct ttrace_entry *e,
		       uint64_t *slots)
{
	struct tfile *f = p->f;
	uint32_t ncont = TTRACE_NCONT_OF(e->ctx);

	if (e->ts & ~TTRACE_TS_MASK) {
		return tparse_refuse(p, o, "an event with ts 0x%llx: bit 63 is set",
				     (unsigned long long)e->ts);
	}
	if (e->cpu >= f->hdr.num_cpus) {
		return tparse_refuse(p, o + offsetof(struct ttrace_entry, cpu),
				     "an event on cpu %u; the file has %u cpus", e->cpu,
				     f->hdr.num_cpus);
	}
	if (e->ctx & ~(TTRACE_CTX_MASK | 3u << TTRACE_CTX_NCONT_SHIFT)) {
		return tparse_refuse(p, o + offsetof(struct ttrace_entry, ctx),
				     "ctx 0x%02x has bits 6-7 set", e->ctx);
	}
	if ((1 + ncont) * (uint64_t)SLOT > end - o) {
		return tparse_refuse(
		    p, o, "an event of %u continuations runs past the end of its section", ncont);
	}
	for (uint32_t j = 1; j <= ncont; j++) {
		uint64_t ts;

		memcpy(&ts, p->d + o + j * SLOT, sizeof(ts));
		if (ts != (e->ts | TTRACE_TS_CONT)) {
			return tparse_refuse(
			    p, o + j * SLOT,
			    "continuation %u of the event at byte %llu has ts 0x%llx, not "
			    "0x%llx",
			    j, (unsigned long long)o, (unsigned long long)ts,
			    (unsigned long long)(e->ts | TTRACE_TS_CONT));
		}
	}
	if (!f->events || e->ts < f->first_ts) {
		f->first_ts = e->ts;
	}
	if (!f->events || e->ts > f->last_ts) {
		f->last_ts = e->ts;
	}
	f->events++;
	f->cpu_events[e->cpu]++;
	f->cpu_entries[e->cpu] += 1 + ncont;
	*slots = 1 + ncont;
	return 0;
}

int tparse_events(struct parser *p, uint64_t payload, uint64_t size)
{
	uint64_t end = payload + size;

	for (uint64_t o = payload; o < end;) {
		struct ttrace_entry e;
		uint64_t slots = 1;
		int err;

		memcpy(&e, p->d + o, sizeof(e));
		if (e.ts & TTRACE_TS_CONT) {
			return tparse_refuse(p, o,
					     "a continuation slot where an event should begin");
		}
		err = e.kind == TRACED_KIND_LOST ? parse_marker(p, o, &e)
						 : parse_event(p, o, end, &e, &slots);
		if (err) {
			return err;
		}
		o += slots * SLOT;
	}
	return add_span(p->f, payload, size) ? -ENOMEM : 0;
}

/* Whether a section at at of stream (0: EVENTS, c + 1: CPU_EVENTS) may follow the spans before. */
bool tparse_stream_ok(struct parser *p, uint64_t at, uint32_t stream)
{
	const struct tfile *f = p->f;

	if (f->nspans && !f->spans[0].stream != !stream) {
		tparse_refuse(p, at, "EVENTS and CPU_EVENTS sections in one file");
		return false;
	}
	return true;
}

/*
 * A CPU_EVENTS section (minor 3): its head, then slots of its CPU alone,
 * checked as EVENTS' are; its span is that CPU's stream.
 */
int tparse_cpu_events(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct ttrace_file_cpu_events c;
	struct tfile *f = p->f;

	if (size < sizeof(c) || (size - sizeof(c)) % SLOT) {
		return tparse_refuse(p, head,
				     "a CPU_EVENTS section of %llu bytes is not a head "
				     "and whole 64-byte slots",
				     (unsigned long long)size);
	}
	memcpy(&c, p->d + payload, sizeof(c));
	if (c.cpu >= f->hdr.num_cpus || c.reserved) {
		return tparse_refuse(p, payload,
				     "a CPU_EVENTS section for cpu %u; the file has %u cpus", c.cpu,
				     f->hdr.num_cpus);
	}
	if (!tparse_stream_ok(p, head, c.cpu + 1)) {
		return -EINVAL;
	}
	uint64_t at = payload + sizeof(c), end = payload + size;
	for (uint64_t o = at; o < end; o += SLOT) {
		struct ttrace_entry e;
		memcpy(&e, p->d + o, sizeof(e));
		if (!(e.ts & TTRACE_TS_CONT) && e.cpu != c.cpu) {
			return tparse_refuse(p, o + offsetof(struct ttrace_entry, cpu),
					     "an entry of cpu %u in cpu %u's CPU_EVENTS section",
					     e.cpu, c.cpu);
		}
	}
	size_t before = f->nspans;
	int err = tparse_events(p, at, end - at);
	if (!err && f->nspans > before) {
		f->spans[f->nspans - 1].stream = c.cpu + 1;
	}
	return err;
}

/* Checks that the len bytes at file offset at are whole aux records from aux position pos. */
int tparse_records(struct parser *p, uint64_t at, uint64_t pos, uint64_t len, const char *what)
{
	for (uint64_t i = 0; i < len;) {
		struct ttrace_aux_record r = {0};

		if (len - i >= sizeof(r)) {
			memcpy(&r, p->d + at + i, sizeof(r));
		}
		if (len - i < sizeof(r) || !(r.flags & TTRACE_AUX_VALID) || r.pos != pos + i ||
		    !r.tag || r.len > TTRACE_AUX_LEN_MAX ||
		    TTRACE_AUX_RECORD_SIZE(r.len) > len - i) {
			return tparse_refuse(p, at + i,
					     "the %s bytes at aux position %llu are not a record",
					     what, (unsigned long long)(pos + i));
		}
		i += TTRACE_AUX_RECORD_SIZE(r.len);
	}
	return 0;
}

int tparse_durable(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;

	if (size > f->hdr.aux_durable_size) {
		return tparse_refuse(
		    p, head,
		    "an AUX_DURABLE section of %llu bytes is larger than aux_durable_size "
		    "%llu",
		    (unsigned long long)size, (unsigned long long)f->hdr.aux_durable_size);
	}
	f->durable = p->d + payload;
	f->durable_size = size;
	return tparse_records(p, payload, 0, size, "AUX_DURABLE");
}

int tparse_ledger(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;
	const uint64_t want = f->hdr.num_cpus * (uint64_t)sizeof(struct ttrace_file_ledger);

	if (size != want) {
		return tparse_refuse(p, head, "a LEDGER section of %llu bytes; %u cpus take %llu",
				     (unsigned long long)size, f->hdr.num_cpus,
				     (unsigned long long)want);
	}
	for (uint32_t c = 0; c < f->hdr.num_cpus; c++) {
		uint64_t at = payload + c * sizeof(struct ttrace_file_ledger);
		struct ttrace_file_ledger *l = &f->ledger[c];
		memcpy(l, p->d + at, sizeof(*l));
		/*
		 * Modulo 2^64, as the writer computes the counters (abi/trace.h
		 * ACCOUNTING): the identity holds exactly even in a snapshot whose
		 * overwritten wrapped.
		 */
		if (l->stored + l->overwritten + l->dropped + l->cleared != l->emitted) {
			return tparse_refuse(
			    p, at,
			    "cpu %u's ledger does not add up: emitted %llu is not stored + "
			    "overwritten + dropped + cleared",
			    c, (unsigned long long)l->emitted);
		}
		if (l->lost != f->cpu_lost[c]) {
			return tparse_refuse(
			    p, at + offsetof(struct ttrace_file_ledger, lost),
			    "cpu %u's ledger counts %llu entries lost, its loss markers %llu", c,
			    (unsigned long long)l->lost, (unsigned long long)f->cpu_lost[c]);
		}
	}
	return 0;
}

int tparse_end(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;
	struct ttrace_file_end *e = &f->end;

	if (size != sizeof(*e)) {
		return tparse_refuse(p, head, "an END section of %llu bytes, not %zu",
				     (unsigned long long)size, sizeof(*e));
	}
	memcpy(e, p->d + payload, sizeof(*e));
	uint64_t sum = tparse_sum(p, head);
	if (e->checksum != sum) {
		return tparse_refuse(
		    p, payload + offsetof(struct ttrace_file_end, checksum),
		    "checksum 0x%016llx, the bytes before the END section give 0x%016llx",
		    (unsigned long long)e->checksum, (unsigned long long)sum);
	}
	if (e->events != f->events) {
		return tparse_refuse(p, payload + offsetof(struct ttrace_file_end, events),
				     "END counts %llu events, the EVENTS sections hold %llu",
				     (unsigned long long)e->events, (unsigned long long)f->events);
	}
	if (e->lost != f->lost) {
		return tparse_refuse(p, payload + offsetof(struct ttrace_file_end, lost),
				     "END counts %llu entries lost, the loss markers %llu",
				     (unsigned long long)e->lost, (unsigned long long)f->lost);
	}
	return 0;
}

int tparse_pred(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct ttrace_file_predicate h;
	struct tfile *f = p->f;
	char why[TFILE_WHY_MAX];

	if (size < sizeof(h)) {
		return tparse_refuse(p, head,
				     "a PREDICATE section of %llu bytes is shorter than its head",
				     (unsigned long long)size);
	}
	memcpy(&h, p->d + payload, sizeof(h));
	if (!h.len || h.len > TTRACE_PRED_TEXT_MAX) {
		return tparse_refuse(p, payload, "a predicate of %u bytes is not 1 to %d", h.len,
				     TTRACE_PRED_TEXT_MAX);
	}
	if (h.reserved) {
		return tparse_refuse(p, payload + offsetof(struct ttrace_file_predicate, reserved),
				     "a PREDICATE section's reserved word is 0x%x, not 0",
				     h.reserved);
	}
	if (size != sizeof(h) + ((h.len + 7ull) & ~7ull)) {
		return tparse_refuse(p, head,
				     "a PREDICATE section of %llu bytes does not hold its %u bytes "
				     "of text padded to 8",
				     (unsigned long long)size, h.len);
	}
	const uint8_t *text = p->d + payload + sizeof(h);
	for (uint64_t i = 0; i < size - sizeof(h); i++) {
		if (i < h.len ? !text[i] : text[i] != 0) {
			return tparse_refuse(p, payload + sizeof(h) + i, "%s in the predicate",
					     i < h.len ? "a NUL byte" : "padding not zero");
		}
	}
	memcpy(f->pred, text, h.len);
	f->pred[h.len] = '\0';
	/* traced compiled it for this filter before it saved: text that does not was no save's */
	if (ttrace_filter_pred_check(f->pred, &f->hdr.filter, why, sizeof(why))) {
		f->pred[0] = '\0';
		return tparse_refuse(p, payload + sizeof(h), "the predicate does not compile: %s",
				     why);
	}
	return 0;
}
