/*
 * file: the checks of a saved trace (see file.h), in the file's own
 * order, so the first thing wrong is the one reported, with the section
 * checks of file_parse.c; a recording's chunks are chunks.c's. Every
 * field is copied out with memcpy, never read through a cast pointer:
 * the bytes are untrusted and may be misaligned until their section is
 * checked.
 */
#include "tools/spoor-trace/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/chunks.h"
#include "tools/spoor-trace/file_parse.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "saved traces are little-endian: this reader copies their fields as they are"
#endif

/* The sections every file has, in their order, after any EVENTS (or CPU_EVENTS). */
static const uint32_t required[] = {TTRACE_FILE_AUX_DURABLE, TTRACE_FILE_AUX_RING,
				    TTRACE_FILE_LEDGER, TTRACE_FILE_END};
#define NREQUIRED (sizeof(required) / sizeof(required[0]))

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

/* Whether a section of type t may come at stage (the required sections seen so far). */
static int check_order(struct parser *p, uint64_t head, uint32_t t, size_t stage)
{
	if (t == TTRACE_FILE_EVENTS || t == TTRACE_FILE_CPU_EVENTS) {
		if (stage) {
			return tparse_refuse(p, head, "%s %s section after the %s section",
					     tparse_article(t), tparse_section_name(t),
					     tparse_section_name(required[stage - 1]));
		}
		return 0;
	}
	for (size_t i = 0; i < stage; i++) {
		if (required[i] == t) {
			return tparse_refuse(p, head, "a second %s section",
					     tparse_section_name(t));
		}
	}
	if (required[stage] != t) {
		return tparse_refuse(p, head, "%s %s section where the %s section should be",
				     tparse_article(t), tparse_section_name(t),
				     tparse_section_name(required[stage]));
	}
	return 0;
}

/*
 * A PREDICATE section at head (A SAVE'S PREDICATE): only a minor 5 file's,
 * and only its first section (first: none came before it).
 */
static int parse_pred(struct parser *p, uint64_t head, uint64_t payload, uint64_t size, bool first)
{
	if (p->f->hdr.version_minor < 5) {
		return tparse_refuse(p, head, "a PREDICATE section in a file of minor %u (from 5)",
				     p->f->hdr.version_minor);
	}
	if (!first) {
		return tparse_refuse(p, head, "a PREDICATE section after the first section");
	}
	return tparse_pred(p, head, payload, size);
}

static int parse_sections(struct parser *p, uint64_t off)
{
	size_t stage = 0;
	const uint64_t start = off;

	while (off < p->size) {
		struct ttrace_file_section s;
		uint64_t payload = off + HEAD_SIZE;
		int err = tparse_section_head(p, off, stage == NREQUIRED, &s);
		if (err) {
			return err;
		}
		bool events = s.type == TTRACE_FILE_EVENTS || s.type == TTRACE_FILE_CPU_EVENTS;
		/* CPU_EVENTS: a save's from minor 4 (PER-CPU SAVES). */
		bool known = (s.type >= TTRACE_FILE_EVENTS && s.type <= TTRACE_FILE_END) ||
			     events || s.type == TTRACE_FILE_PREDICATE;
		const char *name = tparse_section_name(s.type);
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
		if (s.type == TTRACE_FILE_PREDICATE) {
			err = parse_pred(p, off, payload, s.size, off == start);
			if (err) {
				return err;
			}
			off = payload + s.size;
			continue;
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
			err = tparse_stream_ok(p, off, 0) ? tparse_events(p, payload, s.size)
							  : -EINVAL;
			break;
		case TTRACE_FILE_CPU_EVENTS:
			err = tparse_cpu_events(p, off, payload, s.size);
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
		stage += !events;
		off = payload + s.size;
	}
	if (stage < NREQUIRED) {
		return tparse_refuse(p, p->size, "the file ends before its %s section",
				     tparse_section_name(required[stage]));
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
		err = f->hdr.flags & TTRACE_FILE_F_RECORDING ? chunks_parse(&p, off)
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
	if (!f->parsed) {
		err = parse_start(&p, &off);
		if (err == -EINVAL && f->cut) {
			memset(f, 0, sizeof(*f)); /* the header is still on its way: all anew */
			return -EAGAIN;
		}
	}
	if (!err) {
		/* A save appears whole (renamed into place): only a recording grows. */
		err = f->hdr.flags & TTRACE_FILE_F_RECORDING ? chunks_parse(&p, off)
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

/* The item whose slot is at file offset o, into *item; returns the bytes it takes. */
static uint64_t item_at(const struct tfile *f, uint64_t o, struct tfile_item *item)
{
	struct ttrace_entry e;

	memset(item, 0, sizeof(*item));
	memcpy(&e, f->data + o, sizeof(e));
	item->offset = o;
	if (e.kind == TRACED_KIND_LOST) {
		item->lost = true;
		item->lost_cpu = e.cpu;
		item->lost_count = e.data[0];
		return SLOT;
	}
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
	return (1 + (uint64_t)ncont) * SLOT;
}

/* The next item of per-CPU spans: the CPUs' streams merged (tfile_iter_start()). */
static bool next_merged(struct tfile_iter *it, struct tfile_item *item)
{
	const struct tfile *f = it->f;
	uint32_t best = TTRACE_MAX_CPUS;
	uint64_t best_ts = 0;

	for (uint32_t c = 0; c < f->hdr.num_cpus && c < TTRACE_MAX_CPUS; c++) {
		size_t s = it->cpu_span[c];
		uint64_t at = it->cpu_at[c];
		while (s < f->nspans && (f->spans[s].stream != c + 1 || at >= f->spans[s].size)) {
			s++;
			at = 0;
		}
		it->cpu_span[c] = s;
		it->cpu_at[c] = at;
		if (s == f->nspans) {
			continue;
		}
		struct ttrace_entry e;
		memcpy(&e, f->data + f->spans[s].offset + at, sizeof(e));
		if (e.kind == TRACED_KIND_LOST) {
			best = c; /* before the next event of its CPU, at the latest */
			break;
		}
		if (best == TTRACE_MAX_CPUS || e.ts < best_ts) {
			best = c;
			best_ts = e.ts;
		}
	}
	if (best == TTRACE_MAX_CPUS || (it->until_ts && best_ts >= it->until_ts)) {
		return false;
	}
	it->cpu_at[best] +=
	    item_at(f, f->spans[it->cpu_span[best]].offset + it->cpu_at[best], item);
	return true;
}

uint64_t tfile_settled_ts(const struct tfile *f)
{
	const uint64_t hz = f->hdr.tsc_hz, ns = f->chunk_ns, giga = 1000000000ull;

	if (!f->ends_early || !f->nspans || !f->spans[0].stream || !hz) {
		return 0;
	}
	/* ns as TSC ticks after boot, whole seconds apart so that nothing overflows. */
	return f->hdr.boot_tsc + ns / giga * hz + ns % giga * hz / giga;
}

bool tfile_next(struct tfile_iter *it, struct tfile_item *item)
{
	const struct tfile *f = it->f;

	if (f->nspans && f->spans[0].stream) {
		return next_merged(it, item);
	}
	if (it->span >= f->nspans) {
		return false;
	}
	const struct tfile_span *s = &f->spans[it->span];

	it->at += item_at(f, s->offset + it->at, item);
	if (it->at >= s->size) {
		it->span++;
		it->at = 0;
	}
	return true;
}
