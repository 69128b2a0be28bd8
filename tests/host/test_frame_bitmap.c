/*
 * Tests kernel/mm/frame_bitmap.c, the physical frame allocator's bitmap:
 * marking ranges free and used, lowest-first allocation of single frames
 * and contiguous runs, freeing with its double-free and range checks, and
 * a long random sequence checked against a plain bool array. Every bitmap
 * is malloc'ed to exactly frame_bitmap_words() words, so AddressSanitizer
 * catches a scan that runs past the end.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "mm/frame_bitmap.h"
#include "rand.h"
#include "test.h"

#define MAX_FRAMES 1024
#define MAX_RANGES 4

struct range {
	uint64_t first, count;
};

/* A bitmap of nframes with the given ranges set free; release with put_map(). */
static void get_map(struct frame_bitmap *fb, uint64_t nframes, const struct range *free_ranges,
		    size_t nranges)
{
	uint64_t nwords = frame_bitmap_words(nframes);
	uint64_t *words = malloc(nwords ? nwords * sizeof(*words) : 1);

	if (!words) {
		abort();
	}
	frame_bitmap_init(fb, words, nframes);
	for (size_t i = 0; i < nranges; i++) {
		frame_bitmap_set_free(fb, free_ranges[i].first, free_ranges[i].count);
	}
}

static void put_map(struct frame_bitmap *fb)
{
	free(fb->words);
}

/* Number of entries before the first { 0, 0 } range, at most MAX_RANGES. */
static size_t count_ranges(const struct range *r)
{
	size_t n = 0;

	while (n < MAX_RANGES && r[n].count) {
		n++;
	}
	return n;
}

/*
 * Compares fb with model, in which model[f] is true when frame f is free,
 * and checks that the bits past nframes in the last word are still set:
 * those bits are what keeps the word-at-a-time scan from handing out
 * frames that do not exist. Describes the first difference in why and
 * returns false.
 */
static bool same_as_model(const struct frame_bitmap *fb, const bool *model, char *why,
			  size_t why_size)
{
	uint64_t nfree = 0;

	for (uint64_t f = 0; f < fb->nframes; f++) {
		if (frame_bitmap_is_free(fb, f) != model[f]) {
			snprintf(why, why_size, "frame %llu is %s, expected %s",
				 (unsigned long long)f, model[f] ? "used" : "free",
				 model[f] ? "free" : "used");
			return false;
		}
		nfree += model[f];
	}
	if (fb->nfree != nfree) {
		snprintf(why, why_size, "nfree is %llu, expected %llu",
			 (unsigned long long)fb->nfree, (unsigned long long)nfree);
		return false;
	}
	for (uint64_t f = fb->nframes; f < frame_bitmap_words(fb->nframes) * 64; f++) {
		if (!(fb->words[f / 64] >> (f % 64) & 1)) {
			snprintf(why, why_size, "padding bit %llu past nframes is clear",
				 (unsigned long long)f);
			return false;
		}
	}
	return true;
}

#define CHECK_MODEL(fb, model, what)                                                               \
	do {                                                                                       \
		char why_[128];                                                                    \
		CHECK(same_as_model((fb), (model), why_, sizeof(why_)), "%s: %s", (what), why_);   \
	} while (0)

static void model_set(bool *model, uint64_t nframes, uint64_t first, uint64_t count, bool is_free)
{
	for (uint64_t f = first; f < nframes && f - first < count; f++) {
		model[f] = is_free;
	}
}

/*
 * Runs check on a bitmap of each of the n sizes, every frame used or every
 * frame free, with a name for its messages ("nframes N").
 */
static void for_each_size(const uint64_t *sizes, size_t n, bool all_free,
			  void (*check)(struct frame_bitmap *fb, uint64_t nframes,
					const char *what))
{
	static const struct range all[] = {{0, UINT64_MAX}};

	for (size_t i = 0; i < n; i++) {
		struct frame_bitmap fb;
		char what[32];

		snprintf(what, sizeof(what), "nframes %llu", (unsigned long long)sizes[i]);
		get_map(&fb, sizes[i], all, all_free ? 1 : 0);
		check(&fb, sizes[i], what);
		put_map(&fb);
	}
}

static void check_all_used(struct frame_bitmap *fb, uint64_t nframes, const char *what)
{
	static const bool model[MAX_FRAMES]; /* all false: used */
	uint64_t first;

	CHECK_EQ_UINT(fb->nframes, nframes, what);
	CHECK_MODEL(fb, model, what);
	CHECK_EQ_INT(frame_bitmap_alloc(fb, 1, &first), -ENOMEM, what);
	CHECK(!frame_bitmap_is_free(fb, nframes), "%s: frame nframes is free", what);
}

TEST(frame_bitmap_init_marks_every_frame_used)
{
	static const uint64_t sizes[] = {0, 1, 63, 64, 65, 128, 200};

	for_each_size(sizes, sizeof(sizes) / sizeof(sizes[0]), false, check_all_used);
}

/* One bitmap of 200 frames taken through these steps in order. */
static const struct set_step {
	bool free;
	uint64_t first, count;
	uint64_t nfree; /* after the step */
	const char *note;
} set_steps[] = {
    {true, 0, 10, 10, "a first range"},
    {true, 0, 10, 10, "the same again: nothing changes"},
    {true, 5, 10, 15, "overlapping the free range"},
    {false, 3, 4, 11, "a hole in it"},
    {false, 3, 4, 11, "the same hole again"},
    {false, 3, 0, 11, "an empty range"},
    {true, 60, 8, 19, "across the first word boundary"},
    {true, 190, 100, 29, "clipped at nframes"},
    {true, 200, 5, 29, "entirely past nframes"},
    {true, UINT64_MAX, 2, 29, "past nframes, first + count wrapping"},
    {true, 0, UINT64_MAX, 200, "everything"},
    {false, 64, 64, 136, "exactly the second word"},
    {false, 5, UINT64_MAX, 5, "first + count wraps: to the end"},
    {false, 0, 1000, 0, "everything, and more"},
};

TEST(frame_bitmap_set_free_and_used_count_exactly)
{
	const uint64_t nframes = 200;
	struct frame_bitmap fb;
	bool model[MAX_FRAMES] = {false};

	get_map(&fb, nframes, NULL, 0);
	for (size_t n = 0; n < sizeof(set_steps) / sizeof(set_steps[0]); n++) {
		const struct set_step *s = &set_steps[n];
		char what[128];

		snprintf(what, sizeof(what), "step %zu set_%s(%llu, %llu), %s", n,
			 s->free ? "free" : "used", (unsigned long long)s->first,
			 (unsigned long long)s->count, s->note);
		if (s->free) {
			frame_bitmap_set_free(&fb, s->first, s->count);
		} else {
			frame_bitmap_set_used(&fb, s->first, s->count);
		}
		model_set(model, nframes, s->first, s->count, s->free);
		CHECK_EQ_UINT(fb.nfree, s->nfree, what);
		CHECK_MODEL(&fb, model, what);
	}
	put_map(&fb);
}

TEST(frame_bitmap_alloc_single_frames_lowest_first)
{
	static const struct range free_ranges[] = {{130, 1}, {7, 1}, {64, 1}, {3, 1}};
	static const uint64_t expect[] = {3, 7, 64, 130};
	struct frame_bitmap fb;
	uint64_t first;

	get_map(&fb, 200, free_ranges, 4);
	for (size_t n = 0; n < sizeof(expect) / sizeof(expect[0]); n++) {
		char what[32];

		snprintf(what, sizeof(what), "alloc %zu", n);
		first = UINT64_MAX;
		CHECK_EQ_INT(frame_bitmap_alloc(&fb, 1, &first), 0, what);
		CHECK_EQ_UINT(first, expect[n], what);
		CHECK(!frame_bitmap_is_free(&fb, expect[n]), "%s: frame still free", what);
		CHECK_EQ_UINT(fb.nfree, 3 - n, what);
	}
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 1, &first), -ENOMEM, "when empty");
	put_map(&fb);
}

/*
 * Each row: a bitmap of nframes with free ranges, one alloc of count.
 * On success the run is marked used and nothing else changes; on failure
 * nothing changes at all.
 */
static const struct alloc_row {
	uint64_t nframes;
	struct range free[MAX_RANGES];
	uint64_t count;
	int ret;
	uint64_t first;
} alloc_rows[] = {
    {256, {{0, 256}}, 1, 0, 0},
    {256, {{0, 256}}, 256, 0, 0},
    {256, {{0, 256}}, 257, -ENOMEM, 0},
    {256, {{0, 256}}, 0, -EINVAL, 0},
    {256, {{10, 5}}, 0, -EINVAL, 0},
    /* Runs across a word boundary. */
    {256, {{60, 8}}, 8, 0, 60},
    {256, {{62, 2}, {64, 3}}, 5, 0, 62},
    {256, {{127, 2}}, 2, 0, 127},
    {256, {{1, 63}, {64, 1}}, 64, 0, 1},
    {256, {{0, 63}, {64, 64}}, 64, 0, 64},
    {256, {{10, 150}}, 130, 0, 10}, /* across two boundaries */
    /* The lowest run that fits, skipping holes that are too short. */
    {256, {{10, 3}, {20, 8}}, 5, 0, 20},
    {256, {{10, 3}, {60, 8}}, 4, 0, 60},
    {256, {{5, 4}, {20, 10}}, 4, 0, 5},
    {256, {{0, 1}, {2, 1}, {4, 3}}, 3, 0, 4},
    {256, {{64, 64}}, 64, 0, 64}, /* after a full used word */
    /* A full used word between two runs ends the first one. */
    {256, {{60, 4}, {128, 8}}, 5, 0, 128},
    {256, {{60, 4}, {128, 4}}, 5, -ENOMEM, 0},
    {256, {{200, 1}}, 1, 0, 200},
    /* Enough free frames in total, but no run long enough. */
    {256, {{10, 3}, {20, 3}, {30, 3}}, 4, -ENOMEM, 0},
    {256, {{0, 63}, {65, 63}}, 64, -ENOMEM, 0},
    /* nframes not a multiple of 64: the run must end below nframes. */
    {200, {{100, 100}}, 100, 0, 100},
    {200, {{190, 10}}, 11, -ENOMEM, 0},
    {100, {{0, 100}}, 100, 0, 0},
    {100, {{0, 100}}, 101, -ENOMEM, 0},
    {70, {{69, 1}}, 1, 0, 69},
    {70, {{68, 2}}, 3, -ENOMEM, 0},
    {1, {{0, 1}}, 1, 0, 0},
    {0, {{0, 0}}, 1, -ENOMEM, 0},
};

TEST(frame_bitmap_alloc_runs)
{
	for (size_t n = 0; n < sizeof(alloc_rows) / sizeof(alloc_rows[0]); n++) {
		const struct alloc_row *r = &alloc_rows[n];
		size_t nranges = count_ranges(r->free);
		bool model[MAX_FRAMES] = {false};
		struct frame_bitmap fb;
		uint64_t first = UINT64_MAX;
		char what[48];

		snprintf(what, sizeof(what), "row %zu (alloc %llu of %llu)", n,
			 (unsigned long long)r->count, (unsigned long long)r->nframes);
		get_map(&fb, r->nframes, r->free, nranges);
		for (size_t i = 0; i < nranges; i++) {
			model_set(model, r->nframes, r->free[i].first, r->free[i].count, true);
		}
		CHECK_EQ_INT(frame_bitmap_alloc(&fb, r->count, &first), r->ret, what);
		if (r->ret == 0) {
			CHECK_EQ_UINT(first, r->first, what);
			model_set(model, r->nframes, r->first, r->count, false);
		}
		CHECK_MODEL(&fb, model, what);
		put_map(&fb);
	}
}

/*
 * Each row: 200 frames with frames [10, 15) and 199 in use (allocated),
 * everything else free, then one free; -EINVAL must change nothing.
 */
static const struct free_row {
	uint64_t first, count;
	int ret;
} free_rows[] = {
    {10, 5, 0},
    {11, 3, 0},
    {199, 1, 0},
    {10, 6, -EINVAL}, /* frame 15 is already free: none of them is freed */
    {9, 2, -EINVAL},
    {20, 1, -EINVAL},
    {199, 2, -EINVAL},
    {200, 1, -EINVAL},
    {201, 0, -EINVAL},
    {10, 0, -EINVAL}, /* count 0 is refused, as in frame_bitmap_alloc */
    {UINT64_MAX, 1, -EINVAL},
    {10, UINT64_MAX, -EINVAL},
    {0, 201, -EINVAL},
};

TEST(frame_bitmap_free_checks_then_frees)
{
	static const struct range free_ranges[] = {{0, 10}, {15, 184}};

	for (size_t n = 0; n < sizeof(free_rows) / sizeof(free_rows[0]); n++) {
		const struct free_row *r = &free_rows[n];
		bool model[MAX_FRAMES] = {false};
		struct frame_bitmap fb;
		char what[48];

		snprintf(what, sizeof(what), "row %zu free(%llu, %llu)", n,
			 (unsigned long long)r->first, (unsigned long long)r->count);
		get_map(&fb, 200, free_ranges, 2);
		model_set(model, 200, 0, 10, true);
		model_set(model, 200, 15, 184, true);
		CHECK_MODEL(&fb, model, "setup");
		CHECK_EQ_INT(frame_bitmap_free(&fb, r->first, r->count), r->ret, what);
		if (r->ret == 0) {
			model_set(model, 200, r->first, r->count, true);
		}
		CHECK_MODEL(&fb, model, what);
		put_map(&fb);
	}
}

/* The padding bits past nframes are set, but they are not frames to free. */
TEST(frame_bitmap_free_refuses_padding_bits)
{
	static const struct range all[] = {{0, 100}};
	bool model[MAX_FRAMES] = {false};
	struct frame_bitmap fb;

	get_map(&fb, 100, all, 1);
	model_set(model, 100, 0, 100, true);
	CHECK_EQ_INT(frame_bitmap_free(&fb, 100, 1), -EINVAL, "free(100, 1)");
	CHECK_EQ_INT(frame_bitmap_free(&fb, 127, 1), -EINVAL, "free(127, 1)");
	CHECK_MODEL(&fb, model, "after");
	uint64_t first;
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 100, &first), 0, "alloc(100)");
	CHECK_EQ_INT(frame_bitmap_free(&fb, 99, 2), -EINVAL, "free(99, 2)");
	CHECK(!frame_bitmap_is_free(&fb, 99), "free(99, 2) freed frame 99");
	put_map(&fb);
}

/* Frees lower the search start again: a freed run is the next one found. */
TEST(frame_bitmap_free_then_alloc_returns_the_same_frames)
{
	static const struct range all[] = {{0, 300}};
	struct frame_bitmap fb;
	uint64_t first;

	get_map(&fb, 300, all, 1);
	for (uint64_t f = 0; f < 200; f++) {
		CHECK_EQ_INT(frame_bitmap_alloc(&fb, 1, &first), 0, "fill");
		CHECK_EQ_UINT(first, f, "fill");
	}
	/* A single frame, far below where the scan has got to. */
	CHECK_EQ_INT(frame_bitmap_free(&fb, 5, 1), 0, "free(5, 1)");
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 1, &first), 0, "realloc 1");
	CHECK_EQ_UINT(first, 5, "realloc 1");
	/* A run across a word boundary. */
	CHECK_EQ_INT(frame_bitmap_free(&fb, 60, 10), 0, "free(60, 10)");
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 10, &first), 0, "realloc 10");
	CHECK_EQ_UINT(first, 60, "realloc 10");
	/* Two runs freed: the lower one comes back first, the other after it. */
	CHECK_EQ_INT(frame_bitmap_free(&fb, 150, 4), 0, "free(150, 4)");
	CHECK_EQ_INT(frame_bitmap_free(&fb, 20, 4), 0, "free(20, 4)");
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 4, &first), 0, "realloc 4");
	CHECK_EQ_UINT(first, 20, "realloc 4");
	CHECK_EQ_INT(frame_bitmap_alloc(&fb, 4, &first), 0, "realloc 4 again");
	CHECK_EQ_UINT(first, 150, "realloc 4 again");
	CHECK_EQ_UINT(fb.nfree, 100, "at the end");
	put_map(&fb);
}

/* nframes not a multiple of 64: exactly nframes frames come out, all below it. */
static void check_all_free(struct frame_bitmap *fb, uint64_t nframes, const char *what)
{
	uint64_t first;

	CHECK_EQ_UINT(fb->nfree, nframes, what);
	for (uint64_t f = 0; f < nframes; f++) {
		CHECK_EQ_INT(frame_bitmap_alloc(fb, 1, &first), 0, what);
		CHECK_EQ_UINT(first, f, what);
	}
	CHECK_EQ_INT(frame_bitmap_alloc(fb, 1, &first), -ENOMEM, what);
	CHECK_EQ_UINT(fb->nfree, 0, what);
	frame_bitmap_set_free(fb, 0, UINT64_MAX);
	CHECK_EQ_INT(frame_bitmap_alloc(fb, nframes + 1, &first), -ENOMEM, what);
	CHECK_EQ_INT(frame_bitmap_alloc(fb, nframes, &first), 0, what);
	CHECK_EQ_UINT(first, 0, what);
}

TEST(frame_bitmap_partial_last_word)
{
	static const uint64_t sizes[] = {1, 63, 65, 70, 127, 129};

	for_each_size(sizes, sizeof(sizes) / sizeof(sizes[0]), true, check_all_free);
}

/* The lowest run of count free frames in model, as the allocator must find it. */
static int model_alloc(const bool *model, uint64_t nframes, uint64_t count, uint64_t *first)
{
	uint64_t run = 0;

	if (!count) {
		return -EINVAL;
	}
	for (uint64_t f = 0; f < nframes; f++) {
		run = model[f] ? run + 1 : 0;
		if (run == count) {
			*first = f + 1 - count;
			return 0;
		}
	}
	return -ENOMEM;
}

static int model_free(const bool *model, uint64_t nframes, uint64_t first, uint64_t count)
{
	if (!count || first >= nframes || count > nframes - first) {
		return -EINVAL;
	}
	for (uint64_t f = first; f < first + count; f++) {
		if (model[f]) {
			return -EINVAL;
		}
	}
	return 0;
}

#define RANDOM_FRAMES 1000 /* 15 words and 40 frames: a partial last word */
#define RANDOM_OPS    5000
#define RANDOM_SEED   0x5eed5eed5eed5eedull

/* Frees count frames at first in fb (*got) and in model (*want), alike. */
static void free_both(struct frame_bitmap *fb, bool *model, uint64_t first, uint64_t count,
		      int *got, int *want)
{
	*got = frame_bitmap_free(fb, first, count);
	*want = model_free(model, RANDOM_FRAMES, first, count);
	if (*got == 0) {
		model_set(model, RANDOM_FRAMES, first, count, true);
	}
}

/*
 * Random allocs, frees (of earlier allocations and of arbitrary ranges)
 * and the occasional set_free/set_used, each compared with the model
 * afterwards. Stops at the first difference, which is the one to debug.
 */
TEST(frame_bitmap_random_ops_match_model)
{
	static const struct range half[] = {{0, RANDOM_FRAMES / 2}};
	static uint64_t allocated[RANDOM_OPS][2];
	bool model[RANDOM_FRAMES] = {false};
	uint64_t state = RANDOM_SEED;
	size_t nallocated = 0;
	struct frame_bitmap fb;

	get_map(&fb, RANDOM_FRAMES, half, 1);
	model_set(model, RANDOM_FRAMES, 0, RANDOM_FRAMES / 2, true);
	for (int op = 0; op < RANDOM_OPS; op++) {
		uint64_t r = test_random(&state);
		uint64_t kind = r % 100;
		char what[96];
		int got, want;

		if (kind < 45) {
			/* Mostly small runs, now and then a long one. */
			uint64_t count = (r >> 8) & 7 ? (r >> 16) % 8 + 1 : (r >> 16) % 100;
			uint64_t first = UINT64_MAX, want_first = UINT64_MAX;
			snprintf(what, sizeof(what), "op %d alloc(%llu)", op,
				 (unsigned long long)count);
			got = frame_bitmap_alloc(&fb, count, &first);
			want = model_alloc(model, RANDOM_FRAMES, count, &want_first);
			if (got == 0 && want == 0 && first == want_first) {
				model_set(model, RANDOM_FRAMES, first, count, false);
				allocated[nallocated][0] = first;
				allocated[nallocated][1] = count;
				nallocated++;
			} else if (got == 0 || want == 0) {
				CHECK(false, "%s: returned %d first %llu, expected %d first %llu",
				      what, got, (unsigned long long)first, want,
				      (unsigned long long)want_first);
				break;
			}
		} else if (kind < 85 && nallocated) {
			/* Free an earlier allocation; set_free may have freed it already. */
			size_t i = (r >> 8) % nallocated;
			uint64_t first = allocated[i][0], count = allocated[i][1];
			allocated[i][0] = allocated[nallocated - 1][0];
			allocated[i][1] = allocated[nallocated - 1][1];
			nallocated--;
			snprintf(what, sizeof(what), "op %d free(%llu, %llu)", op,
				 (unsigned long long)first, (unsigned long long)count);
			free_both(&fb, model, first, count, &got, &want);
		} else if (kind < 95) {
			/* A short range anywhere: it may be partly free or run past the end. */
			uint64_t first = (r >> 8) % (RANDOM_FRAMES + 10);
			uint64_t count = (r >> 24) % 4;
			snprintf(what, sizeof(what), "op %d free(%llu, %llu) at random", op,
				 (unsigned long long)first, (unsigned long long)count);
			free_both(&fb, model, first, count, &got, &want);
		} else {
			bool to_free = (r >> 8) & 1;
			uint64_t first = (r >> 16) % RANDOM_FRAMES;
			uint64_t count = (r >> 32) % 200;
			snprintf(what, sizeof(what), "op %d set_%s(%llu, %llu)", op,
				 to_free ? "free" : "used", (unsigned long long)first,
				 (unsigned long long)count);
			if (to_free) {
				frame_bitmap_set_free(&fb, first, count);
			} else {
				frame_bitmap_set_used(&fb, first, count);
			}
			model_set(model, RANDOM_FRAMES, first, count, to_free);
			got = want = 0;
		}

		char why[128];
		if (got != want) {
			CHECK(false, "%s: returned %d, expected %d", what, got, want);
			break;
		}
		if (!same_as_model(&fb, model, why, sizeof(why))) {
			CHECK(false, "%s: %s", what, why);
			break;
		}
	}
	put_map(&fb);
}
