/*
 * Tests the reader's side of filtered files per CPU (abi/trace_file.h,
 * PER-CPU CHUNKS and SAVES; servers/traced/sieve.c makes them): a
 * recording with a filter carries each CPU's matching events in
 * CPU_EVENTS sections, and its counts say the ring was read further than
 * its events and losses, by the entries the filter left out. Such a file
 * reads as the save of the same events does; a hostile one (the filter
 * taken out of the header, counts that claim more than the ring span or
 * go back, a section of a CPU the file lacks) is refused in one line at
 * its byte; a filtered save per CPU reads as an unfiltered one.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/file.h"

#define CHUNK_ITEMS 5 /* the lossy sample's items make several chunks */
#define HDR	    sizeof(struct ttrace_file_header)
#define HEAD	    sizeof(struct ttrace_file_section)

TEST(spoor_trace_filtered_per_cpu_recording_reads_as_the_save_of_its_events)
{
	struct gen g;
	size_t slen, rlen;
	struct gen_parsed s, r;

	gen_sample(&g, true);
	uint8_t *save = gen_file(&g, NULL, &slen);
	uint8_t *rec = gen_recording_sieved(&g, CHUNK_ITEMS, true, &rlen, NULL, NULL);
	gen_parse(save, slen, &s);
	gen_parse(rec, rlen, &r);
	CHECK_EQ_STR(r.why, "", "a filtered per-CPU recording is accepted");
	CHECK_EQ_INT(r.err, 0, "parse");
	CHECK_EQ_UINT(r.f.events, s.f.events, "the same events");
	CHECK_EQ_UINT(r.f.lost, s.f.lost, "the same losses");
	for (uint32_t c = 0; c < g.hdr.num_cpus; c++) {
		const struct ttrace_file_chunk_cpu *k = &r.f.chunk_cpu[c];
		CHECK_EQ_UINT(r.f.cpu_lost[c], s.f.cpu_lost[c], "a cpu's losses");
		CHECK(k->entries + k->lost < k->next - k->first,
		      "cpu %u: the filter passed entries over (%llu + %llu of %llu)", c,
		      (unsigned long long)k->entries, (unsigned long long)k->lost,
		      (unsigned long long)(k->next - k->first));
	}
	tfile_free(&s.f);
	tfile_free(&r.f);
	free(save);
	free(rec);
	gen_free(&g);
}

/* An edit of a filtered per-CPU recording, and the start of the line that refuses it. */
struct hostile {
	const char *what;
	void (*edit)(uint8_t *rec, size_t len, const size_t *ends, uint32_t ncpus);
	const char *refusal; /* the refusal holds it */
};

/* Chunk k's cpu c counts, where the file ends[] says chunk k is. */
static size_t counts_at(const size_t *ends, size_t k, uint32_t c)
{
	return (k ? ends[k - 1] : HDR) + HEAD + sizeof(struct ttrace_file_chunk) +
	       c * sizeof(struct ttrace_file_chunk_cpu);
}

static void no_filter(uint8_t *rec, size_t len, const size_t *ends, uint32_t ncpus)
{
	(void)len;
	(void)ends;
	(void)ncpus;
	memset(rec + offsetof(struct ttrace_file_header, filter), 0, sizeof(struct traced_filter));
}

static void edit_next(uint8_t *rec, size_t at, int64_t by)
{
	struct ttrace_file_chunk_cpu k;

	memcpy(&k, rec + at, sizeof(k));
	k.next += (uint64_t)by;
	memcpy(rec + at, &k, sizeof(k));
}

/* Chunk 0's cpu 0 says it read fewer ring entries than its events and losses take. */
static void short_span(uint8_t *rec, size_t len, const size_t *ends, uint32_t ncpus)
{
	struct ttrace_file_chunk_cpu k;

	(void)len;
	(void)ncpus;
	memcpy(&k, rec + counts_at(ends, 0, 0), sizeof(k));
	edit_next(rec, counts_at(ends, 0, 0),
		  -(int64_t)(k.next - k.first - k.entries - k.lost) - 1);
}

/* Chunk 1's last cpu says its ring position went back below chunk 0's. */
static void back(uint8_t *rec, size_t len, const size_t *ends, uint32_t ncpus)
{
	struct ttrace_file_chunk_cpu k0, k1;

	(void)len;
	memcpy(&k0, rec + counts_at(ends, 0, ncpus - 1), sizeof(k0));
	memcpy(&k1, rec + counts_at(ends, 1, ncpus - 1), sizeof(k1));
	edit_next(rec, counts_at(ends, 1, ncpus - 1), (int64_t)k0.next - (int64_t)k1.next - 1);
}

/* The first CPU_EVENTS section of chunk 0 names a CPU the file does not have. */
static void no_such_cpu(uint8_t *rec, size_t len, const size_t *ends, uint32_t ncpus)
{
	(void)len;
	for (size_t in = counts_at(ends, 0, ncpus); in + HEAD <= ends[0];) {
		struct ttrace_file_section s;
		memcpy(&s, rec + in, sizeof(s));
		if (s.type == TTRACE_FILE_CPU_EVENTS) {
			memcpy(rec + in + HEAD, &ncpus, sizeof(ncpus));
			return;
		}
		in += HEAD + s.size;
	}
}

static const struct hostile hostiles[] = {
    {"the filter taken out of the header", no_filter, "chunk 0: cpu 0's counts"},
    {"counts past the ring span", short_span, "chunk 0: cpu 0's counts"},
    {"a ring position that goes back", back, "chunk 1: cpu 3's counts"},
    {"a section of a CPU the file lacks", no_such_cpu, "a CPU_EVENTS section for cpu 4"},
};

TEST(spoor_trace_hostile_filtered_per_cpu_chunks_are_refused_at_their_byte)
{
	struct gen g;
	size_t len, *ends, n;

	gen_sample(&g, true);
	uint8_t *rec = gen_recording_sieved(&g, CHUNK_ITEMS, true, &len, &ends, &n);
	CHECK(n > 2 && g.hdr.num_cpus == 4, "several chunks of 4 cpus: %zu", n);
	for (size_t i = 0; i < sizeof(hostiles) / sizeof(hostiles[0]) && n > 2; i++) {
		struct gen_parsed p;
		uint8_t *bad = malloc(len); /* exactly: ASan sees a read past it */
		memcpy(bad, rec, len);
		hostiles[i].edit(bad, len, ends, g.hdr.num_cpus);
		/* The checksums made right again: the check behind them must refuse it. */
		gen_fix_chunk_sums(bad, len);
		gen_fix_checksum(bad, len);
		gen_parse(bad, len, &p);
		CHECK(p.err && !strncmp(p.why, "byte ", 5) && strstr(p.why, hostiles[i].refusal),
		      "%s: refused as '%s': %s", hostiles[i].what, hostiles[i].refusal, p.why);
		if (!p.err) {
			tfile_free(&p.f);
		}
		free(bad);
	}
	free(ends);
	free(rec);
	gen_free(&g);
}

TEST(spoor_trace_filtered_per_cpu_save_reads_as_the_merged_one)
{
	static const uint32_t per_cpu[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					   TTRACE_FILE_AUX_RING,   TTRACE_FILE_LEDGER,
					   TTRACE_FILE_END,	   0};
	struct gen g;
	size_t mlen, clen;
	struct gen_parsed m, c;

	gen_sample(&g, true);
	g.hdr.filter = (struct traced_filter){.flags = TRACED_F_CPUS, .cpus = 0xf};
	uint8_t *merged = gen_file(&g, NULL, &mlen);
	uint8_t *cpus = gen_file(&g, per_cpu, &clen);
	gen_parse(merged, mlen, &m);
	gen_parse(cpus, clen, &c);
	CHECK_EQ_STR(c.why, "", "a filtered per-CPU save is accepted");
	CHECK_EQ_INT(c.err, 0, "parse");
	CHECK_EQ_UINT(c.f.events, m.f.events, "the same events");
	CHECK_EQ_UINT(c.f.lost, m.f.lost, "the same losses");
	for (uint32_t k = 0; k < g.hdr.num_cpus; k++) {
		CHECK_EQ_UINT(c.f.cpu_lost[k], m.f.cpu_lost[k], "a cpu's losses");
	}
	tfile_free(&m.f);
	tfile_free(&c.f);
	free(merged);
	free(cpus);
	gen_free(&g);
}
