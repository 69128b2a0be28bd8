/*
 * The fuzz test of tools/spoor-trace: FUZZ_FILES files mutated from valid
 * ones (the samples and random traces of gen.h, as saves and as
 * recordings of chunks, finished or not, merged, per CPU and per CPU
 * with a filter, saves with a predicate's section) by a seeded PRNG, with
 * bit flips, truncation, byte overwrites, header field and section size
 * edits, and half the time the checksums (END's and every chunk's) fixed
 * afterwards, so the edits
 * reach the checks past it and the converters. Each file goes to the
 * reader; each one it accepts goes through every converter, into
 * /dev/null. Built with ASan and UBSan that abort on the first report,
 * so the test is that nothing is reported; and that every refusal is a
 * "byte N: ..." line and every acceptance converts without an error.
 * The seed is fixed: a failure replays; FUZZ_SEED in the environment
 * tries others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/ctf.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/flame.h"
#include "tools/spoor-trace/perfetto.h"
#include "tools/spoor-trace/text.h"
#include "tools/spoor-trace/pprof.h"
#include "tools/spoor-trace/timeline.h"
#include "tools/spoor-trace/tracedat.h"
#include "tools/spoor-trace/view.h"

#define FUZZ_FILES 10000
#define FUZZ_BASES 16 /* the last RECORDINGS of them recordings */
#define RECORDINGS 4
#define FUZZ_SEED  0x5eed5eedull

#define HDR  sizeof(struct ttrace_file_header)
#define HEAD sizeof(struct ttrace_file_section)

struct base {
	uint8_t *buf;
	size_t len;
};

/* Values that sit on the edges of the checks. */
static uint64_t interesting(uint64_t *s)
{
	static const uint64_t values[] = {0,	      1,
					  7,	      8,
					  16,	      63,
					  64,	      65,
					  192,	      4096,
					  4095,	      1u << 20,
					  64u << 20,  UINT32_MAX,
					  UINT64_MAX, UINT64_MAX - 7,
					  1ull << 63, TTRACE_FILE_MAGIC};

	return values[gen_rand(s) % (sizeof(values) / sizeof(values[0]))];
}

/* The offsets of the file's section heads, as far as they can be walked. */
static size_t sections(const uint8_t *buf, size_t len, size_t *heads, size_t max)
{
	size_t n = 0;
	size_t off = HDR;

	while (n < max && off + HEAD <= len) {
		uint64_t size;
		memcpy(&size, buf + off + 8, sizeof(size));
		heads[n++] = off;
		if (size > len - off - HEAD) {
			break;
		}
		off += HEAD + size;
	}
	return n;
}

static void mutate(uint8_t *buf, size_t *len, uint64_t *s)
{
	size_t heads[64];
	uint64_t v;

	if (!*len) {
		return;
	}
	switch (gen_rand(s) % 7) {
	case 0: /* a bit flip */
		buf[gen_rand(s) % *len] ^= (uint8_t)(1u << gen_rand(s) % 8);
		break;
	case 1: /* truncation */
		*len = gen_rand(s) % *len;
		break;
	case 2: /* a run of random bytes */
		for (size_t i = gen_rand(s) % *len, n = 1 + gen_rand(s) % 16; n && i < *len;
		     n--, i++) {
			buf[i] = (uint8_t)gen_rand(s);
		}
		break;
	case 3: /* a header field set to an edge value */
		if (*len >= HDR) {
			size_t at = 8 * (gen_rand(s) % (HDR / 8));
			v = interesting(s);
			memcpy(buf + at, &v, gen_rand(s) % 2 ? 8 : 4);
		}
		break;
	case 4: /* a section's size edited */
	case 5: {
		size_t n = sections(buf, *len, heads, 64);
		if (n) {
			size_t at = heads[gen_rand(s) % n] + 8;
			memcpy(&v, buf + at, sizeof(v));
			switch (gen_rand(s) % 4) {
			case 0:
				v += 8 * (gen_rand(s) % 3) - 8;
				break;
			case 1:
				v += 64 * (gen_rand(s) % 3) - 64;
				break;
			case 2:
				v = interesting(s);
				break;
			default:
				v = gen_rand(s) % 4096;
				break;
			}
			memcpy(buf + at, &v, sizeof(v));
		}
		break;
	}
	default: { /* a section's type edited */
		size_t n = sections(buf, *len, heads, 64);
		if (n) {
			uint32_t t = (uint32_t)(gen_rand(s) % (TTRACE_FILE_PREDICATE + 1));
			memcpy(buf + heads[gen_rand(s) % n], &t, sizeof(t));
		}
		break;
	}
	}
}

/* The reader, then every converter; counts acceptances. */
static void feed(const uint8_t *buf, size_t len, FILE *null, size_t *accepted)
{
	char why[TFILE_WHY_MAX];
	struct tfile f;
	struct tview v;
	FILE *streams[TTRACE_MAX_CPUS];

	if (tfile_parse(buf, len, &f, why, sizeof(why))) {
		CHECK(!strncmp(why, "byte ", 5), "a refusal that names no byte: %s", why);
		return;
	}
	(*accepted)++;
	if (tview_init(&v, &f)) {
		CHECK(0, "out of memory");
		tfile_free(&f);
		return;
	}
	for (size_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		streams[i] = null;
	}
	CHECK_EQ_INT(text_convert(&v, null), 0, "text");
	CHECK_EQ_INT(ctf_convert(&v, "fuzz", null, streams), 0, "ctf");
	CHECK_EQ_INT(perfetto_convert(&v, null), 0, "perfetto");
	CHECK_EQ_INT(timeline_convert(&v, null), 0, "timeline");
	CHECK_EQ_INT(tracedat_convert(&v, null, NULL), 0, "tracedat");
	int err = pprof_convert(&v, null);
	CHECK(err == 0 || err == -ENOENT, "pprof");
	err = flame_folded(&v, FLAME_GRAPH, null);
	CHECK(err == 0 || err == -ENOENT, "flamegraph --graph");
	tview_fini(&v);
	tfile_free(&f);
}

TEST(spoor_trace_fuzz_mutated_files)
{
	static const uint32_t per_cpu_save[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
						TTRACE_FILE_AUX_RING,	TTRACE_FILE_LEDGER,
						TTRACE_FILE_END,	0};
	/* A save with `if PREDICATE` (minor 5): its text first, mutated as any section. */
	static const uint32_t pred_save[] = {TTRACE_FILE_PREDICATE,
					     TTRACE_FILE_CPU_EVENTS,
					     TTRACE_FILE_AUX_DURABLE,
					     TTRACE_FILE_AUX_RING,
					     TTRACE_FILE_LEDGER,
					     TTRACE_FILE_END,
					     0};
	static const char *const preds[] = {"result < 0", "pid == 3 && !(cpu > 1)",
					    "comm == \"memtest\" || tid != 7"};
	struct base bases[FUZZ_BASES];
	const char *env = getenv("FUZZ_SEED");
	uint64_t s = env ? strtoull(env, NULL, 0) : FUZZ_SEED;
	size_t accepted = 0;
	FILE *null = fopen("/dev/null", "w");
	clock_t start = clock();

	if (!null) {
		CHECK(0, "cannot open /dev/null");
		return;
	}
	for (size_t i = 0; i < FUZZ_BASES; i++) {
		struct gen g;
		if (i < 2) {
			gen_sample(&g, i == 1);
		} else {
			gen_random(&g, s + i);
		}
		/* Recordings of chunks of 1 to 4 items, two of them still being written. */
		if (i >= FUZZ_BASES - RECORDINGS) {
			size_t k = FUZZ_BASES - i;
			/*
			 * Half of them per CPU (minor 3): the readers merge the CPUs;
			 * one of those with a filter, its rings read past its events.
			 */
			bases[i].buf =
			    k > RECORDINGS / 2
				? gen_recording(&g, k, k % 2, &bases[i].len, NULL, NULL)
			    : k > 1 ? gen_recording_cpus(&g, k, k % 2, &bases[i].len, NULL, NULL)
				    : gen_recording_sieved(&g, k, k % 2, &bases[i].len, NULL, NULL);
		} else {
			/*
			 * Every other save per CPU (minor 4), half of those with a
			 * filter; of the others, half with a predicate too.
			 */
			if (i % 4 == 3) {
				g.hdr.filter =
				    (struct traced_filter){.flags = TRACED_F_CPUS, .cpus = 1};
			}
			snprintf(g.pred, sizeof(g.pred), "%s", preds[i % 3]);
			bases[i].buf = gen_file(&g,
						i % 4 == 1   ? per_cpu_save
						: i % 2 == 1 ? pred_save
							     : NULL,
						&bases[i].len);
		}
		gen_free(&g);
		feed(bases[i].buf, bases[i].len, null, &accepted);
	}
	CHECK_EQ_UINT(accepted, FUZZ_BASES, "every unmutated file is accepted");
	accepted = 0;
	for (size_t n = 0; n < FUZZ_FILES; n++) {
		const struct base *b = &bases[gen_rand(&s) % FUZZ_BASES];
		uint8_t *buf = malloc(b->len);
		size_t len = b->len;

		memcpy(buf, b->buf, len);
		for (uint64_t k = 1 + gen_rand(&s) % 3; k; k--) {
			mutate(buf, &len, &s);
		}
		if (gen_rand(&s) % 2) {
			gen_fix_chunk_sums(buf, len);
			gen_fix_checksum(buf, len);
		}
		/* Exactly len bytes: ASan sees any read past the end. */
		uint8_t *exact = malloc(len ? len : 1);
		memcpy(exact, buf, len);
		feed(exact, len, null, &accepted);
		free(exact);
		free(buf);
	}
	printf("spoor-trace fuzz: %d files, %zu accepted, %.1f s\n", FUZZ_FILES, accepted,
	       (double)(clock() - start) / CLOCKS_PER_SEC);
	CHECK(accepted > FUZZ_FILES / 100, "the mutations reach the converters: %zu accepted",
	      accepted);
	for (size_t i = 0; i < FUZZ_BASES; i++) {
		free(bases[i].buf);
	}
	fclose(null);
}
