/*
 * chunks: the checks of a recording (abi/trace_file.h, A RECORDING), for
 * file.c's tfile_parse(): each chunk's checksum over the file so far,
 * its sections, its running counts against the events before it, and
 * the aux pieces joined into one ring copy. A file that stops at a chunk
 * boundary is read with a note that it ends early; anything cut or wrong
 * inside a chunk is refused at its byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/chunks.h"
#include "tools/spoor-trace/file_parse.h"

/*
 * Appends a chunk's AUX_RING piece to the joined ring copy. A piece that
 * starts past the copy's end follows records evicted before they were
 * sent: blank TEXT records fill their place, so positions stay exact.
 */
static int join_ring(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;
	struct ttrace_file_aux_ring r;

	if (size < sizeof(r)) {
		return tparse_refuse(p, head,
				     "an AUX_RING section of %llu bytes is shorter than its head",
				     (unsigned long long)size);
	}
	memcpy(&r, p->d + payload, sizeof(r));
	uint64_t from = f->ring_own ? f->aux_last : f->hdr.aux_durable_size;
	if (r.first % 8 || r.first < from || r.last < r.first ||
	    r.last - r.first != size - sizeof(r)) {
		return tparse_refuse(
		    p, payload,
		    "an AUX_RING piece of positions %llu..%llu in %llu bytes does not "
		    "follow the last piece's end %llu",
		    (unsigned long long)r.first, (unsigned long long)r.last,
		    (unsigned long long)(size - sizeof(r)), (unsigned long long)from);
	}
	if (!f->ring_own) {
		f->aux_first = f->aux_last = r.first;
	}
	if (r.last - f->aux_first > TFILE_AUX_MAX) {
		return tparse_refuse(p, head, "the recording's aux records pass %llu bytes",
				     (unsigned long long)TFILE_AUX_MAX);
	}
	uint8_t *ring = realloc(f->ring_own, r.last - f->aux_first + 8);
	if (!ring) {
		return -ENOMEM;
	}
	f->ring_own = ring;
	f->ring = ring;
	for (uint64_t pos = f->aux_last; pos < r.first;) {
		/* Records are whole words: a gap is one, or a half-size one and the rest. */
		uint64_t gap = r.first - pos;
		uint64_t len = gap > TTRACE_AUX_RECORD_SIZE(TTRACE_AUX_LEN_MAX)
				   ? TTRACE_AUX_LEN_MAX / 2
				   : gap - sizeof(struct ttrace_aux_record);
		struct ttrace_aux_record blank = {.pos = pos,
						  .tag = TTRACE_AUX_TEXT,
						  .len = (uint16_t)len,
						  .flags = TTRACE_AUX_VALID};
		memset(ring + (pos - f->aux_first), 0, TTRACE_AUX_RECORD_SIZE(len));
		memcpy(ring + (pos - f->aux_first), &blank, sizeof(blank));
		pos += TTRACE_AUX_RECORD_SIZE(len);
	}
	memcpy(ring + (r.first - f->aux_first), p->d + payload + sizeof(r), r.last - r.first);
	f->aux_last = r.last;
	return tparse_records(p, payload + sizeof(r), r.first, r.last - r.first, "AUX_RING");
}

/* The sections inside a chunk's payload [at, end). */
static int chunk_sections(struct parser *p, uint64_t at, uint64_t end)
{
	while (at < end) {
		struct ttrace_file_section s;
		int err;

		if (end - at < HEAD_SIZE) {
			return tparse_refuse(p, at, "a chunk ends inside a section head");
		}
		memcpy(&s, p->d + at, sizeof(s));
		uint64_t payload = at + HEAD_SIZE;
		if (s.size % 8 || s.size > end - payload ||
		    (s.type == TTRACE_FILE_EVENTS && s.size % SLOT)) {
			return tparse_refuse(p, at,
					     "%s %s section of %llu bytes does not fit its chunk",
					     tparse_article(s.type), tparse_section_name(s.type),
					     (unsigned long long)s.size);
		}
		if (s.type == TTRACE_FILE_EVENTS) {
			err = tparse_stream_ok(p, at, 0) ? tparse_events(p, payload, s.size)
							 : -EINVAL;
		} else if (s.type == TTRACE_FILE_CPU_EVENTS) {
			err = tparse_cpu_events(p, at, payload, s.size);
		} else if (s.type == TTRACE_FILE_AUX_DURABLE && !p->f->chunks && !p->f->durable) {
			err = tparse_durable(p, at, payload, s.size);
		} else if (s.type == TTRACE_FILE_AUX_RING) {
			err = join_ring(p, at, payload, s.size);
		} else {
			err = tparse_refuse(p, at, "%s %s section inside chunk %llu",
					    tparse_article(s.type), tparse_section_name(s.type),
					    (unsigned long long)p->f->chunks);
		}
		if (err) {
			return err;
		}
		at = payload + s.size;
	}
	return 0;
}

/* A chunk's running counts at at: each CPU's entries and losses so far, and where it read to. */
static int chunk_counts(struct parser *p, uint64_t at)
{
	struct tfile *f = p->f;

	for (uint32_t c = 0; c < f->hdr.num_cpus; c++, at += sizeof(struct ttrace_file_chunk_cpu)) {
		struct ttrace_file_chunk_cpu k, *last = &f->chunk_cpu[c];
		memcpy(&k, p->d + at, sizeof(k));
		bool same = !f->chunks || (k.first == last->first && k.next >= last->next);
		uint64_t span = k.next - k.first;
		bool whole =
		    f->hdr.filter.flags ? k.entries + k.lost <= span : k.entries + k.lost == span;
		if (!same || k.next < k.first || k.entries != f->cpu_entries[c] ||
		    k.lost != f->cpu_lost[c] || !whole) {
			return tparse_refuse(
			    p, at,
			    "chunk %llu: cpu %u's counts (entries %llu, lost %llu, ring "
			    "%llu..%llu) do not match its events (%llu entries, %llu lost)",
			    (unsigned long long)f->chunks, c, (unsigned long long)k.entries,
			    (unsigned long long)k.lost, (unsigned long long)k.first,
			    (unsigned long long)k.next, (unsigned long long)f->cpu_entries[c],
			    (unsigned long long)f->cpu_lost[c]);
		}
		*last = k;
	}
	return 0;
}

static int parse_chunk(struct parser *p, uint64_t head, uint64_t payload, uint64_t size)
{
	struct tfile *f = p->f;
	struct ttrace_file_chunk c;
	uint64_t counts = payload + sizeof(c);
	uint64_t inner = counts + f->hdr.num_cpus * (uint64_t)sizeof(struct ttrace_file_chunk_cpu);
	uint64_t sum_at = payload + size - sizeof(uint64_t), sum;

	if (size < inner - payload + sizeof(sum)) {
		return tparse_refuse(p, head, "chunk %llu of %llu bytes is shorter than its head",
				     (unsigned long long)f->chunks, (unsigned long long)size);
	}
	memcpy(&sum, p->d + sum_at, sizeof(sum));
	if (sum != tparse_sum(p, sum_at)) {
		return tparse_refuse(p, sum_at,
				     "chunk %llu's checksum 0x%016llx does not match its bytes",
				     (unsigned long long)f->chunks, (unsigned long long)sum);
	}
	tparse_sum(p, sum_at + sizeof(sum));
	memcpy(&c, p->d + payload, sizeof(c));
	if (c.seq != f->chunks || c.num_cpus != f->hdr.num_cpus ||
	    c.flags & ~TTRACE_CHUNK_F_RESUMED) {
		return tparse_refuse(p, payload, "chunk %llu says seq %llu, %u cpus, flags 0x%x",
				     (unsigned long long)f->chunks, (unsigned long long)c.seq,
				     c.num_cpus, c.flags);
	}
	f->resumed += c.flags & TTRACE_CHUNK_F_RESUMED ? 1 : 0;
	f->chunk_ns = c.ns;
	int err = chunk_sections(p, inner, sum_at);
	err = err ? err : chunk_counts(p, counts);
	f->chunks++;
	return err;
}

/* A recording's sections: CHUNKs, then LEDGER and END, or nothing more (it ends early). */
int chunks_parse(struct parser *p, uint64_t off)
{
	struct tfile *f = p->f;
	uint32_t stage = 0; /* 0: chunks, 1: after LEDGER, 2: after END */

	while (off < p->size) {
		struct ttrace_file_section s;
		uint64_t payload = off + HEAD_SIZE;
		int err = tparse_section_head(p, off, stage == 2, &s);
		if (err) {
			return err;
		}
		if (s.size % 8 || s.size > p->size - payload) {
			f->cut = s.size % 8 == 0;
			return tparse_refuse(
			    p, off,
			    "%s %s section of %llu bytes is cut or not a multiple of 8 "
			    "(%llu bytes left)",
			    tparse_article(s.type), tparse_section_name(s.type),
			    (unsigned long long)s.size, (unsigned long long)(p->size - payload));
		}
		if (s.type == TTRACE_FILE_CHUNK && !stage) {
			err = parse_chunk(p, off, payload, s.size);
		} else if (s.type == TTRACE_FILE_LEDGER && !stage) {
			err = tparse_ledger(p, off, payload, s.size);
		} else if (s.type == TTRACE_FILE_END && stage == 1) {
			err = tparse_end(p, off, payload, s.size);
		} else if (s.type > TTRACE_FILE_CHUNK && s.type != TTRACE_FILE_PREDICATE) {
			/* PREDICATE is a save's alone: RECORD takes no predicate */
			err = 0; /* a newer minor's section: skipped */
			stage--;
		} else {
			err = tparse_refuse(p, off, "%s %s section where a recording has none",
					    tparse_article(s.type), tparse_section_name(s.type));
		}
		if (err) {
			return err;
		}
		stage += s.type != TTRACE_FILE_CHUNK;
		off = payload + s.size;
		if (s.type == TTRACE_FILE_CHUNK || stage == 2) {
			f->parsed = off; /* whole: a follower goes on from here */
			f->parsed_sum = p->sum;
		}
	}
	if (stage == 1) {
		f->cut = true; /* LEDGER and END arrive together: END is on its way */
		return tparse_refuse(p, p->size, "the file ends before its END section");
	}
	if (!stage) {
		f->ends_early = true;
		snprintf(
		    f->note, sizeof(f->note),
		    "the recording ends early, after chunk %llu at byte %llu: it has no ledger "
		    "(still being written, or the machine stopped)",
		    (unsigned long long)f->chunks, (unsigned long long)p->size);
	}
	return 0;
}
