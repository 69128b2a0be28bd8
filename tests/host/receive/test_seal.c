/*
 * The host's checksums of a recording (tools/spoor-receive/seal.c): a
 * recording as traced sends it, its checksum words zero, comes out with
 * every chunk's and END's checksum the word-wise sum of the file before
 * it (abi/trace_file.h, CHECKSUMS), whatever the records' boundaries;
 * and records a hostile guest could write (sizes that do not fit, cut
 * heads, random bytes by the thousand, each in a buffer of exactly its
 * size so that AddressSanitizer stops any access past it) get one line
 * and leave the running sum as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/trace_file.h"
#include "common/fnv.h"
#include "rand.h"
#include "test.h"
#include "tools/spoor-receive/seal.h"

#define HDR	    sizeof(struct ttrace_file_header)
#define HEAD	    sizeof(struct ttrace_file_section)
#define FILE_MAX    4096
#define FUZZ_ROUNDS 20000

struct file {
	uint8_t bytes[FILE_MAX];
	size_t len;
};

static void put(struct file *f, const void *p, size_t n)
{
	memcpy(f->bytes + f->len, p, n);
	f->len += n;
}

static void section(struct file *f, uint32_t type, uint64_t size)
{
	struct ttrace_file_section s = {.type = type, .size = size};

	put(f, &s, sizeof(s));
}

/* A chunk of words payload words, then its checksum word, zero as traced leaves it. */
static void chunk(struct file *f, uint64_t words, uint64_t fill)
{
	section(f, TTRACE_FILE_CHUNK, (words + 1) * 8);
	for (uint64_t i = 0; i < words; i++) {
		uint64_t w = fill + i;
		put(f, &w, 8);
	}
	put(f, &(uint64_t){0}, 8);
}

/* A recording: the header, three chunks, LEDGER and END; where each record ends. */
static void recording(struct file *f, size_t ends[4])
{
	struct ttrace_file_header h = {.magic = TTRACE_FILE_MAGIC, .header_size = HDR};

	f->len = 0;
	put(f, &h, sizeof(h));
	chunk(f, 5, 100);
	ends[0] = f->len;
	chunk(f, 0, 0);
	ends[1] = f->len;
	chunk(f, 9, 7);
	ends[2] = f->len;
	section(f, TTRACE_FILE_LEDGER, 48);
	for (int i = 0; i < 6; i++) {
		put(f, &(uint64_t){i + 1u}, 8);
	}
	section(f, TTRACE_FILE_END, sizeof(struct ttrace_file_end));
	put(f, &(struct ttrace_file_end){.events = 14, .lost = 2}, sizeof(struct ttrace_file_end));
	ends[3] = f->len;
}

/* Seals f's bytes [from, to) as one record in a buffer of exactly its size. */
static const char *seal_piece(struct seal *s, struct file *f, size_t from, size_t to)
{
	uint8_t *copy = malloc(to - from ? to - from : 1);
	memcpy(copy, f->bytes + from, to - from);
	const char *why = seal_record(s, copy, to - from);
	memcpy(f->bytes + from, copy, to - from);
	free(copy);
	return why;
}

/* Whether each checksum word of f holds the sum of the bytes before it (what a reader checks). */
static void check_sums(const struct file *f, const char *what)
{
	size_t at = HDR;
	int chunks = 0, ends = 0;

	while (at < f->len) {
		struct ttrace_file_section s;
		memcpy(&s, f->bytes + at, HEAD);
		size_t next = at + HEAD + s.size;
		uint64_t got;
		if (s.type == TTRACE_FILE_CHUNK) {
			memcpy(&got, f->bytes + next - 8, 8);
			CHECK_EQ_UINT(got, ttrace_sum_words(TTRACE_FNV_OFFSET, f->bytes, next - 8),
				      what);
			chunks++;
		} else if (s.type == TTRACE_FILE_END) {
			struct ttrace_file_end e;
			memcpy(&e, f->bytes + at + HEAD, sizeof(e));
			CHECK_EQ_UINT(e.checksum, ttrace_sum_words(TTRACE_FNV_OFFSET, f->bytes, at),
				      what);
			CHECK_EQ_UINT(e.events, 14, what);
			ends++;
		}
		at = next;
	}
	CHECK_EQ_INT(chunks, 3, what);
	CHECK_EQ_INT(ends, 1, what);
}

TEST(seal_writes_every_checksum_of_a_recording_as_it_arrives)
{
	struct file f;
	size_t ends[4];
	struct seal s = {.sum = TTRACE_FNV_OFFSET};

	recording(&f, ends);
	for (size_t i = 0, from = 0; i < 4; from = ends[i++]) {
		const char *why = seal_piece(&s, &f, from, ends[i]);
		CHECK(!why, "record %zu: %s", i, why ? why : "");
	}
	check_sums(&f, "one chunk a record");
	CHECK_EQ_UINT(s.sum, ttrace_sum_words(TTRACE_FNV_OFFSET, f.bytes, f.len),
		      "the running sum");

	/* Resumed after the second record, as a restarted traced goes on: the same file. */
	struct file g;
	recording(&g, ends);
	struct seal first = {.sum = TTRACE_FNV_OFFSET};
	CHECK(!seal_piece(&first, &g, 0, ends[0]) && !seal_piece(&first, &g, ends[0], ends[1]),
	      "the records before the restart");
	struct seal resumed = {.sum = ttrace_sum_words(TTRACE_FNV_OFFSET, g.bytes, ends[1]),
			       .begun = true};
	CHECK(!seal_piece(&resumed, &g, ends[1], ends[2]) &&
		  !seal_piece(&resumed, &g, ends[2], ends[3]),
	      "the records after it");
	CHECK(!memcmp(f.bytes, g.bytes, f.len), "resumed: the file is the same");
}

/* The rows' changes to the second record (the first chunk after the header's record). */
static void size_past(struct file *f, size_t at)
{
	((struct ttrace_file_section *)(f->bytes + at))->size = 4096;
}
static void size_odd(struct file *f, size_t at)
{
	((struct ttrace_file_section *)(f->bytes + at))->size = 4;
}
static void size_huge(struct file *f, size_t at)
{
	((struct ttrace_file_section *)(f->bytes + at))->size = UINT64_MAX - 7;
}
static void chunk_empty(struct file *f, size_t at)
{
	((struct ttrace_file_section *)(f->bytes + at))->size = 0;
}

static const struct {
	const char *name;
	void (*breaks)(struct file *f, size_t at);
	const char *why;
} rows[] = {
    {"a section past the record", size_past, "does not fit"},
    {"a section not whole words", size_odd, "does not fit"},
    {"a size near 2^64", size_huge, "does not fit"},
    {"a chunk without its checksum word", chunk_empty, "no room"},
};

TEST(seal_refuses_records_that_are_not_whole_sections_in_one_line)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct file f;
		size_t ends[4];
		struct seal s = {.sum = TTRACE_FNV_OFFSET};
		recording(&f, ends);
		CHECK(!seal_piece(&s, &f, 0, ends[0]), "%s: the first record", rows[i].name);
		struct seal before = s;
		rows[i].breaks(&f, ends[0]);
		const char *why = seal_piece(&s, &f, ends[0], ends[1]);
		CHECK(why && strstr(why, rows[i].why) && !strchr(why, '\n'), "%s: got '%s'",
		      rows[i].name, why ? why : "(none)");
		CHECK(s.sum == before.sum && s.begun, "%s: the sum as it was", rows[i].name);
	}
	struct file f;
	size_t ends[4];
	struct seal s = {.sum = TTRACE_FNV_OFFSET};
	recording(&f, ends);
	((struct ttrace_file_header *)f.bytes)->header_size = 12;
	CHECK(seal_piece(&s, &f, 0, ends[0]) != NULL, "a header of 12 bytes");
	CHECK(seal_piece(&s, &f, 0, HDR - 8) != NULL, "a first record shorter than a header");
	CHECK(!s.begun && s.sum == TTRACE_FNV_OFFSET, "nothing begun");
	CHECK(seal_piece(&s, &f, ends[0], ends[0] + 4) != NULL, "a record not whole words");
}

TEST(seal_takes_random_records_without_reading_past_them)
{
	uint64_t seed = 0x5ea15ea1ull;
	int refused = 0, taken = 0;

	for (int round = 0; round < FUZZ_ROUNDS; round++) {
		struct file f;
		size_t ends[4];
		recording(&f, ends);
		size_t len = ends[3];
		/* A few bytes changed in a valid recording, or words of noise. */
		for (int k = (int)(test_random(&seed) % 6); k >= 0; k--) {
			uint64_t at = test_random(&seed) % len;
			f.bytes[at] = (uint8_t)test_random(&seed);
		}
		if (round % 4 == 0) {
			for (size_t at = HDR; at + 8 <= len; at += 8) {
				uint64_t w = test_random(&seed) % 64;
				memcpy(f.bytes + at, &w, 8);
			}
		}
		size_t cut = (size_t)(test_random(&seed) % (len / 8 + 1)) * 8;
		struct seal s = {.sum = TTRACE_FNV_OFFSET, .begun = round % 2};
		const char *a = seal_piece(&s, &f, 0, cut);
		const char *b = a ? NULL : seal_piece(&s, &f, cut, len);
		if (a || b) {
			refused++;
			const char *why = a ? a : b;
			CHECK(!strchr(why, '\n'), "round %d: one line", round);
		} else {
			taken++;
		}
	}
	CHECK(refused > 0 && taken > 0, "both: %d refused, %d taken", refused, taken);
}
