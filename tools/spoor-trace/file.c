/*
 * file: the checks of a saved trace (see file.h), in the file's own
 * order, so the first thing wrong is the one reported. Every field is
 * copied out with memcpy, never read through a cast pointer: the bytes
 * are untrusted and may be misaligned until their section is checked.
 */
#include "tools/spoor-trace/file_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "saved traces are little-endian: this reader copies their fields as they are"
#endif

/* The sections every file has, in their order, after any EVENTS. */
static const uint32_t required[] = {TTRACE_FILE_AUX_DURABLE, TTRACE_FILE_AUX_RING,
				    TTRACE_FILE_LEDGER, TTRACE_FILE_END};
#define NREQUIRED (sizeof(required) / sizeof(required[0]))

const char *tfile_section_name(uint32_t t)
{
	static const char *const names[] = {
	    [TTRACE_FILE_EVENTS] = "EVENTS",	 [TTRACE_FILE_AUX_DURABLE] = "AUX_DURABLE",
	    [TTRACE_FILE_AUX_RING] = "AUX_RING", [TTRACE_FILE_LEDGER] = "LEDGER",
	    [TTRACE_FILE_END] = "END",		 [TTRACE_FILE_CHUNK] = "CHUNK",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

/* "a" or "an", as said before a section's name. */
const char *tparse_article(uint32_t t)
{
	return t == TTRACE_FILE_LEDGER || t == TTRACE_FILE_CHUNK ? "a" : "an";
}

int tparse_refuse(struct parser *p, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
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

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int parse_header(struct parser *p, uint64_t *header_size)
{
	struct ttrace_file_header *h = &p->f->hdr;
	const uint64_t ours = sizeof(*h);
	uint32_t magic, hsize;
	uint16_t major, minor;

	if (p->size < sizeof(magic)) {
		p->f->cut = true;
		return tparse_refuse(p, p->size, "the file ends inside its %llu-byte header",
				     (unsigned long long)ours);
	}
	memcpy(&magic, p->d + offsetof(struct ttrace_file_header, magic), sizeof(magic));
	if (magic != TTRACE_FILE_MAGIC) {
		return tparse_refuse(p, 0, "magic 0x%08x is not a saved trace's 0x%08x (\"SPTF\")",
				     magic, TTRACE_FILE_MAGIC);
	}
	if (p->size < offsetof(struct ttrace_file_header, num_cpus)) {
		p->f->cut = true;
		return tparse_refuse(p, p->size, "the file ends inside its %llu-byte header",
				     (unsigned long long)ours);
	}
	memcpy(&major, p->d + offsetof(struct ttrace_file_header, version_major), sizeof(major));
	memcpy(&minor, p->d + offsetof(struct ttrace_file_header, version_minor), sizeof(minor));
	memcpy(&hsize, p->d + offsetof(struct ttrace_file_header, header_size), sizeof(hsize));
	if (major != TTRACE_FILE_VERSION_MAJOR) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, version_major),
				     "format version %u.%u: this reader reads version %u.x", major,
				     minor, TTRACE_FILE_VERSION_MAJOR);
	}
	if (hsize < ours || hsize % 8) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, header_size),
				     "header_size %u is not a multiple of 8 from %llu on", hsize,
				     (unsigned long long)ours);
	}
	if (p->size < hsize) {
		p->f->cut = true;
		return tparse_refuse(p, p->size, "the file ends inside its %u-byte header", hsize);
	}
	memcpy(h, p->d, sizeof(*h));
	*header_size = hsize;
	if (h->num_cpus < 1 || h->num_cpus > TTRACE_MAX_CPUS) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, num_cpus),
				     "num_cpus %u is not 1 to %u", h->num_cpus, TTRACE_MAX_CPUS);
	}
	if (h->aux_durable_size % 8 || h->aux_durable_size > TFILE_AUX_MAX) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, aux_durable_size),
				     "aux_durable_size %llu is not a multiple of 8 up to %llu",
				     (unsigned long long)h->aux_durable_size, TFILE_AUX_MAX);
	}
	if (!is_pow2(h->aux_ring_size) || h->aux_ring_size < TTRACE_AUX_RING_MIN ||
	    h->aux_ring_size > TFILE_AUX_MAX) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, aux_ring_size),
				     "aux_ring_size %llu is not a power of two from %u to %llu",
				     (unsigned long long)h->aux_ring_size, TTRACE_AUX_RING_MIN,
				     TFILE_AUX_MAX);
	}
	if (h->trace_version_major != TTRACE_VERSION_MAJOR) {
		return tparse_refuse(
		    p, offsetof(struct ttrace_file_header, trace_version_major),
		    "events of trace version %u.%u: this reader decodes version %u.x",
		    h->trace_version_major, h->trace_version_minor, TTRACE_VERSION_MAJOR);
	}
	if (h->entry_size != TTRACE_ENTRY_SIZE) {
		return tparse_refuse(p, offsetof(struct ttrace_file_header, entry_size),
				     "entry_size %u is not %u", h->entry_size, TTRACE_ENTRY_SIZE);
	}
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

static int parse_ring(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;
	struct ttrace_file_aux_ring r;
	const uint64_t at_last = payload + offsetof(struct ttrace_file_aux_ring, last);

	if (size < sizeof(r)) {
		return tparse_refuse(p, head,
				     "an AUX_RING section of %llu bytes is shorter than its head",
				     (unsigned long long)size);
	}
	memcpy(&r, p->d + payload, sizeof(r));
	if (r.first % 8 || r.first < f->hdr.aux_durable_size) {
		return tparse_refuse(
		    p, payload,
		    "AUX_RING first %llu is not a multiple of 8 from aux_durable_size "
		    "%llu on",
		    (unsigned long long)r.first, (unsigned long long)f->hdr.aux_durable_size);
	}
	if (r.last < r.first || r.last - r.first > f->hdr.aux_ring_size) {
		return tparse_refuse(
		    p, at_last,
		    "AUX_RING last %llu is not within aux_ring_size %llu after first %llu",
		    (unsigned long long)r.last, (unsigned long long)f->hdr.aux_ring_size,
		    (unsigned long long)r.first);
	}
	if (r.last - r.first != size - sizeof(r)) {
		return tparse_refuse(
		    p, head,
		    "an AUX_RING section of %llu bytes does not hold first..last, %llu "
		    "bytes",
		    (unsigned long long)size, (unsigned long long)(r.last - r.first));
	}
	f->ring = p->d + payload + sizeof(r);
	f->aux_first = r.first;
	f->aux_last = r.last;
	return tparse_records(p, payload + sizeof(r), r.first, r.last - r.first, "AUX_RING");
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

/* Whether a section of type t may come at stage (the required sections seen so far). */
static int check_order(struct parser *p, uint64_t head, uint32_t t, size_t stage)
{
	if (t == TTRACE_FILE_EVENTS) {
		if (stage) {
			return tparse_refuse(p, head, "an EVENTS section after the %s section",
					     tfile_section_name(required[stage - 1]));
		}
		return 0;
	}
	for (size_t i = 0; i < stage; i++) {
		if (required[i] == t) {
			return tparse_refuse(p, head, "a second %s section", tfile_section_name(t));
		}
	}
	if (required[stage] != t) {
		return tparse_refuse(p, head, "%s %s section where the %s section should be",
				     tparse_article(t), tfile_section_name(t),
				     tfile_section_name(required[stage]));
	}
	return 0;
}

static int parse_sections(struct parser *p, uint64_t off)
{
	size_t stage = 0;

	while (off < p->size) {
		struct ttrace_file_section s;
		uint64_t payload = off + HEAD_SIZE;
		int err = tparse_section_head(p, off, stage == NREQUIRED, &s);
		if (err) {
			return err;
		}
		bool known = s.type >= TTRACE_FILE_EVENTS && s.type <= TTRACE_FILE_END;
		const char *name = tfile_section_name(s.type);
		if (s.type == TTRACE_FILE_EVENTS && s.size % SLOT) {
			return tparse_refuse(
			    p, off, "an EVENTS section of %llu bytes is not whole %u-byte slots",
			    (unsigned long long)s.size, SLOT);
		}
		if (s.size % 8) {
			return tparse_refuse(p, off,
					     "%s %s section of %llu bytes is not a multiple of 8",
					     known ? tparse_article(s.type) : "an", name,
					     (unsigned long long)s.size);
		}
		if (s.size > p->size - payload) {
			return tparse_refuse(
			    p, off,
			    "%s %s section of %llu bytes runs past the end of the file (%llu "
			    "bytes left)",
			    known ? tparse_article(s.type) : "an", name, (unsigned long long)s.size,
			    (unsigned long long)(p->size - payload));
		}
		if (!known) {
			off = payload + s.size; /* a newer minor's section: skipped */
			continue;
		}
		err = check_order(p, off, s.type, stage);
		if (err) {
			return err;
		}
		switch (s.type) {
		case TTRACE_FILE_EVENTS:
			err = tparse_events(p, payload, s.size);
			break;
		case TTRACE_FILE_AUX_DURABLE:
			err = tparse_durable(p, off, payload, s.size);
			break;
		case TTRACE_FILE_AUX_RING:
			err = parse_ring(p, off, payload, s.size);
			break;
		case TTRACE_FILE_LEDGER:
			err = tparse_ledger(p, off, payload, s.size);
			break;
		default:
			err = tparse_end(p, off, payload, s.size);
			break;
		}
		if (err) {
			return err;
		}
		stage += s.type != TTRACE_FILE_EVENTS;
		off = payload + s.size;
	}
	if (stage < NREQUIRED) {
		return tparse_refuse(p, p->size, "the file ends before its %s section",
				     tfile_section_name(required[stage]));
	}
	return 0;
}

/* What tfile_parse() and tfile_parse_more() do once the sections are read: err passed on. */
static int parsed(struct tfile *f, int err, char *why, size_t why_size)
{
	f->aux_span = f->hdr.aux_ring_size;
	while (f->aux_span && f->aux_span < f->aux_last - f->aux_first) {
		f->aux_span *= 2;
	}
	if (err == -ENOMEM && why_size) {
		snprintf(why, why_size, "out of memory");
	}
	if (err) {
		tfile_free(f);
	}
	return err;
}

/*
 * A new parse of p's file into the zeroed *p->f: its header, and where
 * its sections start in *off. 0 or as tfile_parse().
 */
static int parse_start(struct parser *p, uint64_t *off)
{
	struct tfile *f = p->f;
	int err = parse_header(p, off);

	if (!err && f->hdr.flags & ~TTRACE_FILE_F_RECORDING) {
		err = tparse_refuse(p, offsetof(struct ttrace_file_header, flags),
				    "flags 0x%llx: this reader knows 0x%llx",
				    (unsigned long long)f->hdr.flags,
				    (unsigned long long)TTRACE_FILE_F_RECORDING);
	}
	if (!err) {
		/* The checksums cover the header too. */
		p->sum = TTRACE_FNV_OFFSET;
		f->parsed_sum = tparse_sum(p, *off);
		f->parsed = *off;
	}
	return err;
}

int tfile_parse(const uint8_t *data, size_t size, struct tfile *f, char *why, size_t why_size)
{
	struct parser p = {.d = data, .size = size, .f = f, .why = why, .why_size = why_size};
	uint64_t off = 0;

	memset(f, 0, sizeof(*f));
	f->data = data;
	f->size = size;
	if (why_size) {
		why[0] = '\0';
	}
	int err = parse_start(&p, &off);
	if (!err) {
		err = f->hdr.flags & TTRACE_FILE_F_RECORDING ? tparse_recording(&p, off)
							     : parse_sections(&p, off);
	}
	return parsed(f, err, why, why_size);
}

int tfile_parse_more(struct tfile *f, const uint8_t *data, size_t size, char *why, size_t why_size)
{
	/* The chunks f read are whole: the checksum goes on from their end. */
	struct parser p = {.d = data,
			   .size = size,
			   .f = f,
			   .why = why,
			   .why_size = why_size,
			   .hashed = f->parsed,
			   .sum = f->parsed_sum};
	uint64_t off = f->parsed;
	bool first = !f->parsed;
	int err = 0;

	if (f->durable) {
		f->durable = data + (f->durable - f->data);
	}
	f->data = data;
	f->size = size;
	f->cut = f->ends_early = false;
	if (why_size) {
		why[0] = '\0';
	}
	if (first) {
		err = parse_start(&p, &off);
		if (err == -EINVAL && f->cut) {
			memset(f, 0, sizeof(*f)); /* the header is still on its way: all anew */
			return -EAGAIN;
		}
	}
	if (!err) {
		/* A save appears whole (renamed into place): only a recording grows. */
		err = f->hdr.flags & TTRACE_FILE_F_RECORDING ? tparse_recording(&p, off)
							     : parse_sections(&p, off);
	}
	if (err == -EINVAL && f->cut && f->hdr.flags & TTRACE_FILE_F_RECORDING) {
		f->ends_early = true; /* up to its last whole chunk, which f holds */
		return -EAGAIN;
	}
	return parsed(f, err, why, why_size);
}

int tfile_read(const char *path, uint8_t **data, size_t *size)
{
	FILE *in = fopen(path, "rb");
	size_t cap = 1 << 16;
	size_t len = 0;
	uint8_t *buf = NULL;

	if (!in) {
		return -errno;
	}
	errno = 0;
	for (;;) {
		uint8_t *more = realloc(buf, cap);
		if (!more) {
			free(buf);
			fclose(in);
			return -ENOMEM;
		}
		buf = more;
		len += fread(buf + len, 1, cap - len, in);
		if (len < cap) {
			break;
		}
		cap *= 2;
	}
	int err = ferror(in) ? -(errno ? errno : EIO) : 0;
	fclose(in);
	if (err) {
		free(buf);
		return err;
	}
	*data = buf;
	*size = len;
	return 0;
}

void tfile_free(struct tfile *f)
{
	free(f->spans);
	free(f->ring_own);
	f->ring_own = NULL;
	f->spans = NULL;
	f->nspans = 0;
}

void tfile_iter_start(struct tfile_iter *it, const struct tfile *f)
{
	*it = (struct tfile_iter){.f = f};
}

bool tfile_next(struct tfile_iter *it, struct tfile_item *item)
{
	const struct tfile *f = it->f;
	struct ttrace_entry e;

	if (it->span >= f->nspans) {
		return false;
	}
	const struct tfile_span *s = &f->spans[it->span];
	uint64_t o = s->offset + it->at;

	memset(item, 0, sizeof(*item));
	memcpy(&e, f->data + o, sizeof(e));
	item->offset = o;
	if (e.kind == TRACED_KIND_LOST) {
		item->lost = true;
		item->lost_cpu = e.cpu;
		item->lost_count = e.data[0];
		it->at += SLOT;
	} else {
		struct ttrace_record *r = &item->rec;
		uint32_t ncont = TTRACE_NCONT_OF(e.ctx);

		r->index = e.seq;
		r->ts = e.ts;
		r->pid = e.pid;
		r->tid = e.tid;
		r->kind = e.kind;
		r->cpu = e.cpu;
		r->ctx = TTRACE_CTX_OF(e.ctx);
		r->ncont = (uint8_t)ncont;
		memcpy(r->data, e.data, sizeof(e.data));
		for (uint32_t j = 1; j <= ncont; j++) {
			struct ttrace_cont c;

			memcpy(&c, f->data + o + j * SLOT, sizeof(c));
			memcpy(&r->data[TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS], c.data,
			       sizeof(c.data));
		}
		it->at += (1 + ncont) * SLOT;
	}
	if (it->at >= s->size) {
		it->span++;
		it->at = 0;
	}
	return true;
}
