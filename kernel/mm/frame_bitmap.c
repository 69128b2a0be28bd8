/*
 * frame_bitmap: a word-at-a-time scan for free runs. The hint keeps
 * single-frame allocation from rescanning the full words at the bottom.
 */
#include "mm/frame_bitmap.h"

#include "abi/errno.h"

#define ALL_USED UINT64_MAX

static bool bit(const struct frame_bitmap *fb, uint64_t frame)
{
	return fb->words[frame / 64] >> (frame % 64) & 1;
}

void frame_bitmap_init(struct frame_bitmap *fb, uint64_t *words, uint64_t nframes)
{
	fb->words = words;
	fb->nframes = nframes;
	fb->nfree = 0;
	fb->hint = 0;
	for (uint64_t i = 0; i < frame_bitmap_words(nframes); i++) {
		words[i] = ALL_USED;
	}
}

bool frame_bitmap_is_free(const struct frame_bitmap *fb, uint64_t frame)
{
	return frame < fb->nframes && !bit(fb, frame);
}

static void set_range(struct frame_bitmap *fb, uint64_t first, uint64_t count, bool used)
{
	uint64_t end = first + count;

	if (end > fb->nframes || end < first) {
		end = fb->nframes;
	}
	for (uint64_t f = first; f < end; f++) {
		uint64_t mask = 1ull << (f % 64);
		uint64_t *w = &fb->words[f / 64];
		if (used && !(*w & mask)) {
			*w |= mask;
			fb->nfree--;
		} else if (!used && (*w & mask)) {
			*w &= ~mask;
			fb->nfree++;
		}
	}
	if (!used && first < end && first / 64 < fb->hint) {
		fb->hint = first / 64;
	}
}

void frame_bitmap_set_free(struct frame_bitmap *fb, uint64_t first, uint64_t count)
{
	set_range(fb, first, count, false);
}

void frame_bitmap_set_used(struct frame_bitmap *fb, uint64_t first, uint64_t count)
{
	set_range(fb, first, count, true);
}

int frame_bitmap_alloc(struct frame_bitmap *fb, uint64_t count, uint64_t *first)
{
	uint64_t nwords = frame_bitmap_words(fb->nframes);
	uint64_t run = 0;
	uint64_t start = 0;

	if (!count) {
		return -EINVAL;
	}
	if (count > fb->nfree) {
		return -ENOMEM;
	}
	while (fb->hint < nwords && fb->words[fb->hint] == ALL_USED) {
		fb->hint++;
	}
	for (uint64_t f = fb->hint * 64; f < fb->nframes; f++) {
		if (f % 64 == 0 && run == 0 && fb->words[f / 64] == ALL_USED) {
			f += 63; /* skip a full word */
			continue;
		}
		if (bit(fb, f)) {
			run = 0;
			continue;
		}
		if (run++ == 0) {
			start = f;
		}
		if (run == count) {
			set_range(fb, start, count, true);
			*first = start;
			return 0;
		}
	}
	return -ENOMEM;
}

int frame_bitmap_free(struct frame_bitmap *fb, uint64_t first, uint64_t count)
{
	if (!count || first >= fb->nframes || count > fb->nframes - first) {
		return -EINVAL;
	}
	for (uint64_t f = first; f < first + count; f++) {
		if (!bit(fb, f)) {
			return -EINVAL;
		}
	}
	set_range(fb, first, count, false);
	return 0;
}
