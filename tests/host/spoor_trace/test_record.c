/*
 * Tests the reader's side of a recording (abi/trace_file.h, A RECORDING;
 * tools/spoor-trace/chunks.c): a finished recording reads as the save of
 * the same events does; one cut at any chunk boundary reads up to that
 * chunk and says it ends early; one cut inside a chunk, or with a byte
 * of a chunk changed, is refused at the byte; running counts that do not
 * match the events are refused; a file of minor 0 is still read; one
 * that ends before its first chunk, so with no aux bytes at all, is
 * viewed and converted; a follower reads only the bytes appended.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/text.h"
#include "tools/spoor-trace/view.h"

#define CHUNK_ITEMS 5 /* the lossy sample's items make several chunks */

TEST(spoor_trace_recording_reads_as_the_save)
{
	struct gen g;
	size_t slen, rlen;
	struct gen_parsed s, r;

	gen_sample(&g, true);
	uint8_t *save = gen_file(&g, NULL, &slen);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, true, &rlen, NULL, NULL);
	gen_parse(save, slen, &s);
	gen_parse(rec, rlen, &r);
	CHECK_EQ_STR(r.why, "", "a finished recording is accepted");
	CHECK_EQ_INT(r.err, 0, "parse");
	CHECK(!r.f.ends_early, "a finished recording does not end early");
	CHECK_EQ_UINT(r.f.events, s.f.events, "the same events");
	CHECK_EQ_UINT(r.f.lost, s.f.lost, "the same losses");
	for (uint32_t c = 0; c < g.hdr.num_cpus; c++) {
		CHECK_EQ_UINT(r.f.cpu_lost[c], s.f.cpu_lost[c], "a cpu's losses");
		CHECK_EQ_UINT(r.f.chunk_cpu[c].entries + r.f.chunk_cpu[c].lost,
			      r.f.chunk_cpu[c].next - r.f.chunk_cpu[c].first,
			      "a cpu's entries + lost = its ring span");
	}
	CHECK_EQ_UINT(r.f.aux_last - r.f.aux_first, s.f.aux_last - s.f.aux_first, "the aux ring");
	CHECK(r.f.chunks > 2, "several chunks: %llu", (unsigned long long)r.f.chunks);
	tfile_free(&s.f);
	tfile_free(&r.f);
	free(save);
	free(rec);
	gen_free(&g);
}

/* An item's identity for comparing walks: its kind, cpu and ts, or its marker's cpu and count. */
static uint64_t item_key(const struct tfile_item *it, uint32_t *cpu)
{
	*cpu = it->lost ? it->lost_cpu : it->rec.cpu;
	return it->lost ? ~it->lost_count : it->rec.ts * 65536 + it->rec.kind;
}

TEST(spoor_trace_per_cpu_recording_merges_into_the_saves_order)
{
	struct gen g;
	size_t slen, rlen;
	struct gen_parsed s, r;

	gen_sample(&g, true);
	uint8_t *save = gen_file(&g, NULL, &slen);
	uint8_t *rec = gen_recording_cpus(&g, CHUNK_ITEMS, true, &rlen, NULL, NULL);
	gen_parse(save, slen, &s);
	gen_parse(rec, rlen, &r);
	CHECK_EQ_STR(r.why, "", "a per-CPU recording is accepted");
	CHECK_EQ_INT(r.err, 0, "parse");
	CHECK_EQ_UINT(r.f.events, s.f.events, "the same events");
	CHECK_EQ_UINT(r.f.lost, s.f.lost, "the same losses");
	CHECK(r.f.nspans > g.hdr.num_cpus, "a section per CPU and chunk: %zu", r.f.nspans);
	/*
	 * The events come in the save's order (its timestamps differ), and
	 * each CPU's items, markers included, in that CPU's order.
	 */
	struct tfile_iter a, b;
	struct tfile_item x, y;
	uint64_t seen = 0;
	tfile_iter_start(&a, &s.f);
	tfile_iter_start(&b, &r.f);
	for (uint32_t c = 0; c < g.hdr.num_cpus; c++) {
		struct tfile_iter ac = a, bc = b;
		while (tfile_next(&ac, &x)) {
			uint32_t xc, yc;
			uint64_t want = item_key(&x, &xc), got = 0;
			if (xc != c) {
				continue;
			}
			do {
				CHECK(tfile_next(&bc, &y), "cpu %u: the recording ends early", c);
				got = item_key(&y, &yc);
			} while (yc != c);
			CHECK_EQ_UINT(got, want, "an item of its cpu, in order");
			seen++;
		}
	}
	uint64_t items = 0;
	for (struct tfile_iter all = a; tfile_next(&all, &x);) {
		items++;
	}
	CHECK_EQ_UINT(seen, items, "every item of every cpu walked");
	CHECK(items > s.f.events, "markers among them: %llu items", (unsigned long long)items);
	while (tfile_next(&a, &x)) {
		if (x.lost) {
			continue;
		}
		do {
			CHECK(tfile_next(&b, &y), "the recording ends early");
		} while (y.lost);
		CHECK_EQ_UINT(y.rec.ts, x.rec.ts, "events in timestamp order");
	}
	tfile_free(&s.f);
	tfile_free(&r.f);
	free(save);
	free(rec);
	gen_free(&g);
}

TEST(spoor_trace_cpu_events_holding_another_cpus_entry_are_refused)
{
	struct gen g;
	size_t len;
	struct gen_parsed r;

	gen_sample(&g, false);
	uint8_t *rec = gen_recording_cpus(&g, CHUNK_ITEMS, true, &len, NULL, NULL);
	size_t at = sizeof(struct ttrace_file_header);
	struct ttrace_file_section sec;
	memcpy(&sec, rec + at, sizeof(sec));
	CHECK_EQ_UINT(sec.type, TTRACE_FILE_CHUNK, "the first section");
	/* The first chunk's first CPU_EVENTS section claims the next CPU. */
	for (size_t in = at + sizeof(sec) + sizeof(struct ttrace_file_chunk) +
			 g.hdr.num_cpus * sizeof(struct ttrace_file_chunk_cpu);
	     in + sizeof(sec) <= at + sizeof(sec) + sec.size;) {
		struct ttrace_file_section cs;
		memcpy(&cs, rec + in, sizeof(cs));
		if (cs.type == TTRACE_FILE_CPU_EVENTS) {
			struct ttrace_file_cpu_events h;
			memcpy(&h, rec + in + sizeof(cs), sizeof(h));
			h.cpu = (h.cpu + 1) % g.hdr.num_cpus;
			memcpy(rec + in + sizeof(cs), &h, sizeof(h));
			break;
		}
		in += sizeof(cs) + cs.size;
	}
	gen_fix_chunk_sums(rec, len);
	gen_fix_checksum(rec, len);
	gen_parse(rec, len, &r);
	CHECK(r.err && strstr(r.why, "CPU_EVENTS section"), "refused: %s", r.why);
	tfile_free(&r.f);
	free(rec);
	gen_free(&g);
}

TEST(spoor_trace_recording_cut_at_each_chunk_ends_early)
{
	struct gen g;
	size_t len, *ends, n;

	gen_sample(&g, true);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, false, &len, &ends, &n);
	for (size_t k = 0; k < n; k++) {
		struct gen_parsed p;
		char want[TFILE_WHY_MAX];
		uint8_t *cut = malloc(ends[k]); /* exactly: ASan sees a read past it */
		memcpy(cut, rec, ends[k]);
		gen_parse(cut, ends[k], &p);
		CHECK_EQ_STR(p.why, "", "cut after a chunk");
		if (!p.err) {
			snprintf(want, sizeof(want),
				 "the recording ends early, after chunk %zu at byte %zu: it has no "
				 "ledger (still being written, or the machine stopped)",
				 k + 1, ends[k]);
			CHECK(p.f.ends_early, "cut after a chunk: ends early");
			CHECK_EQ_STR(p.f.note, want, "the note");
			CHECK_EQ_UINT(p.f.chunks, k + 1, "chunks read");
			tfile_free(&p.f);
		}
		free(cut);
	}
	free(ends);
	free(rec);
	gen_free(&g);
}

TEST(spoor_trace_recording_cut_or_corrupt_chunk_is_refused_at_its_byte)
{
	struct gen g;
	size_t len, *ends, n;
	struct gen_parsed p;
	char want[TFILE_WHY_MAX];

	gen_sample(&g, true);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, true, &len, &ends, &n);
	/* Cut 8 bytes into chunk 2: its head says more than the file has. */
	size_t at = ends[1];
	gen_parse(rec, at + 24, &p);
	snprintf(want, sizeof(want),
		 "byte %zu: a CHUNK section of %llu bytes is cut or not a multiple of 8 (8 "
		 "bytes left)",
		 at, (unsigned long long)(ends[2] - at - 16));
	CHECK_EQ_STR(p.why, want, "a cut chunk");
	/* One byte of chunk 1's events changed: its checksum no longer holds. */
	rec[ends[1] - 16] ^= 0x40;
	gen_parse(rec, len, &p);
	uint64_t sum;
	memcpy(&sum, rec + ends[1] - 8, sizeof(sum));
	snprintf(want, sizeof(want),
		 "byte %zu: chunk 1's checksum 0x%016llx does not match its bytes", ends[1] - 8,
		 (unsigned long long)sum);
	CHECK_EQ_STR(p.why, want, "a corrupt chunk");
	free(ends);
	free(rec);
	gen_free(&g);
}

/*
 * The bytes of rec up to len in a buffer of their own, with [0, poison)
 * overwritten: a parser that reads there again reads garbage.
 */
static uint8_t *grown(const uint8_t *rec, size_t len, size_t poison)
{
	uint8_t *b = malloc(len); /* exactly: ASan sees a read past it */

	memcpy(b, rec, len);
	memset(b, 0xa5, poison);
	return b;
}

TEST(spoor_trace_follow_parses_only_what_was_appended)
{
	struct gen g;
	size_t len, *ends, n;
	struct gen_parsed whole, p;
	uint64_t items = 0;

	gen_sample(&g, true);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, true, &len, &ends, &n);
	gen_parse(rec, len, &whole);
	CHECK_EQ_INT(whole.err, 0, "the whole file");
	/* Nothing yet, then part of the header: nothing to read, and nothing kept. */
	memset(&p, 0, sizeof(p));
	uint8_t *buf = grown(rec, 100, 0);
	CHECK_EQ_INT(tfile_parse_more(&p.f, buf, 0, p.why, sizeof(p.why)), -EAGAIN, "empty");
	CHECK_EQ_INT(tfile_parse_more(&p.f, buf, 100, p.why, sizeof(p.why)), -EAGAIN, "header");
	CHECK_EQ_UINT(p.f.parsed, 0, "a header half there is read again");
	free(buf);
	/* The first look that sees a chunk: the first one and half the second. */
	size_t at = ends[0] + (ends[1] - ends[0]) / 2;
	buf = grown(rec, at, 0);
	p.err = tfile_parse_more(&p.f, buf, at, p.why, sizeof(p.why));
	CHECK_EQ_INT(p.err, -EAGAIN, "a chunk being written");
	CHECK(p.f.ends_early && p.f.parsed == ends[0] && p.f.chunks == 1,
	      "read up to chunk 0's end");
	p.err = 0;
	struct tfile_iter it;
	struct tfile_item item;
	tfile_iter_start(&it, &p.f);
	while (tfile_next(&it, &item)) {
		items++;
	}
	/* Then the rest in steps that end inside chunks, each copy with what was read poisoned. */
	for (size_t k = 1; k <= n && !p.err; k++) {
		size_t to = k < n ? ends[k] - 8 : len;
		uint8_t *more = grown(rec, to, p.f.parsed);
		int err = tfile_parse_more(&p.f, more, to, p.why, sizeof(p.why));
		free(buf);
		buf = more;
		CHECK_EQ_INT(err, k < n ? -EAGAIN : 0, "a cut chunk waits; the end is whole");
		CHECK_EQ_UINT(p.f.chunks, k < n ? k : whole.f.chunks, "chunks read");
		if (k == n) {
			CHECK_EQ_STR(p.why, "", "the finished file");
			CHECK(!p.f.ends_early, "whole at last");
		}
		while (tfile_next(&it, &item)) {
			items++;
		}
		p.err = err == -EAGAIN ? 0 : err;
	}
	CHECK_EQ_UINT(p.f.events, whole.f.events, "the same events");
	CHECK_EQ_UINT(p.f.lost, whole.f.lost, "the same losses");
	CHECK_EQ_UINT(p.f.aux_last - p.f.aux_first, whole.f.aux_last - whole.f.aux_first, "aux");
	uint64_t want = 0;
	tfile_iter_start(&it, &whole.f);
	while (tfile_next(&it, &item)) {
		want++;
	}
	CHECK_EQ_UINT(items, want, "every item walked once, as it arrived");
	if (!p.err) {
		tfile_free(&p.f);
	}
	tfile_free(&whole.f);
	free(buf);
	free(ends);
	free(rec);
	gen_free(&g);
}

/* The events (not markers, which may move: LOSS PLACEMENT) of a walk from it on, into keys. */
static size_t walk_events(struct tfile_iter *it, uint64_t *keys, size_t at, size_t max)
{
	struct tfile_item item;
	uint32_t cpu;

	while (tfile_next(it, &item)) {
		if (!item.lost && at < max) {
			keys[at++] = item_key(&item, &cpu) * TTRACE_MAX_CPUS + cpu;
		}
	}
	return at;
}

TEST(spoor_trace_follow_of_a_per_cpu_recording_prints_the_whole_files_order)
{
	enum { MAX = 256 };
	struct gen g;
	size_t len, *ends, n, got = 0;
	struct gen_parsed whole, p;
	uint64_t want[MAX], seen[MAX];
	struct tfile_iter it;

	gen_sample(&g, true);
	uint8_t *rec = gen_recording_cpus(&g, CHUNK_ITEMS, true, &len, &ends, &n);
	gen_parse(rec, len, &whole);
	CHECK_EQ_INT(whole.err, 0, "the whole file");
	tfile_iter_start(&it, &whole.f);
	size_t nwant = walk_events(&it, want, 0, MAX);
	/*
	 * As spoor-trace follow reads it: a chunk more at each look. A CPU whose
	 * stream ends at the last chunk may have events before the other CPUs'
	 * in the next: those wait for it.
	 */
	memset(&p, 0, sizeof(p));
	for (size_t k = 0; k <= n; k++) {
		size_t to = k < n ? ends[k] : len;
		int err = tfile_parse_more(&p.f, rec, to, p.why, sizeof(p.why));
		CHECK_EQ_INT(err, 0, "a chunk more each look");
		CHECK(p.f.ends_early == (k < n), "look %zu: ends early until the last", k);
		if (k == 0) {
			tfile_iter_start(&it, &p.f);
		}
		it.until_ts = tfile_settled_ts(&p.f);
		CHECK(k == n || it.until_ts, "look %zu: the file grows, so events wait", k);
		got = walk_events(&it, seen, got, MAX);
	}
	CHECK_EQ_UINT(got, nwant, "every event, once");
	for (size_t i = 0; i < got && i < nwant; i++) {
		CHECK_EQ_UINT(seen[i], want[i], "the event at its place in the whole file");
	}
	tfile_free(&p.f);
	tfile_free(&whole.f);
	free(ends);
	free(rec);
	gen_free(&g);
}

TEST(spoor_trace_recording_counts_that_miss_entries_are_refused)
{
	struct gen g;
	size_t len, *ends, n;
	struct gen_parsed p;
	char want[TFILE_WHY_MAX];

	gen_sample(&g, false);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, false, &len, &ends, &n);
	/* Chunk 0's cpu 0 says its ring went one entry further than its events. */
	size_t counts = sizeof(struct ttrace_file_header) + sizeof(struct ttrace_file_section) +
			sizeof(struct ttrace_file_chunk);
	struct ttrace_file_chunk_cpu c;
	memcpy(&c, rec + counts, sizeof(c));
	c.next++;
	memcpy(rec + counts, &c, sizeof(c));
	uint64_t sum = ttrace_sum_words(TTRACE_FNV_OFFSET, rec, ends[0] - 8);
	memcpy(rec + ends[0] - 8, &sum, sizeof(sum));
	gen_parse(rec, ends[0], &p);
	snprintf(want, sizeof(want),
		 "byte %zu: chunk 0: cpu 0's counts (entries %llu, lost 0, ring 100..%llu) do not "
		 "match its events (%llu entries, 0 lost)",
		 counts, (unsigned long long)c.entries, (unsigned long long)c.next,
		 (unsigned long long)c.entries);
	CHECK_EQ_STR(p.why, want, "counts past the events");
	free(ends);
	free(rec);
	gen_free(&g);
}

/* A file of an older minor: a save of minor 0, or a recording of minor 1. */
static const struct older {
	uint16_t minor;
	bool recording;
} olders[] = {{0, false}, {1, true}};

TEST(spoor_trace_reads_older_minors_checked_byte_wise)
{
	for (size_t i = 0; i < sizeof(olders) / sizeof(olders[0]); i++) {
		struct gen g;
		size_t len;
		struct gen_parsed p;

		gen_sample(&g, olders[i].recording);
		g.hdr.version_minor = olders[i].minor;
		uint8_t *file = olders[i].recording
				    ? gen_recording(&g, CHUNK_ITEMS, true, &len, NULL, NULL)
				    : gen_file(&g, NULL, &len);
		gen_parse(file, len, &p);
		CHECK_EQ_STR(p.why, "", "an older minor, its checksums FNV-1a over bytes, is read");
		if (!p.err) {
			tfile_free(&p.f);
		}
		/* The same bytes under minor 2 are refused: the checksums are not word-wise. */
		uint16_t minor = 2;
		memcpy(file + offsetof(struct ttrace_file_header, version_minor), &minor,
		       sizeof(minor));
		gen_parse(file, len, &p);
		CHECK(p.err == -EINVAL && strstr(p.why, "checksum"), "refused: %s", p.why);
		free(file);
		gen_free(&g);
	}
}

/* A recording cut before its first chunk has no durable aux bytes: the view holds none. */
TEST(spoor_trace_views_a_recording_with_no_aux_bytes)
{
	struct gen g;
	size_t len;
	struct gen_parsed p;
	struct tview v;

	gen_sample(&g, false);
	uint8_t *rec = gen_recording(&g, CHUNK_ITEMS, false, &len, NULL, NULL);
	gen_parse(rec, sizeof(struct ttrace_file_header), &p);
	CHECK_EQ_STR(p.why, "", "a recording cut after its header is read");
	if (!p.err) {
		CHECK(!p.f.durable_size && !p.f.chunks, "no chunk, no aux bytes");
		CHECK_EQ_INT(tview_init(&v, &p.f), 0, "the view");
		FILE *null = fopen("/dev/null", "w");
		CHECK_EQ_INT(text_convert(&v, null), 0, "the text of no events");
		fclose(null);
		tview_fini(&v);
		tfile_free(&p.f);
	}
	free(rec);
	gen_free(&g);
}
