/*
 * frame_bitmap: which physical frames are free, one bit a frame (1 = in
 * use). Pure logic with no locking and no kernel dependency: pmm.c wraps it
 * in a lock, and the host unit tests compile this very file.
 */
#ifndef SPOOR_MM_FRAME_BITMAP_H
#define SPOOR_MM_FRAME_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

struct frame_bitmap {
	uint64_t *words;  /* nframes bits, rounded up to whole words */
	uint64_t nframes; /* frames covered: frame numbers 0 .. nframes-1 */
	uint64_t nfree;	  /* bits clear */
	uint64_t hint;	  /* a word index at or below the lowest free frame */
};

/* Number of uint64_t words needed to cover nframes. */
static inline uint64_t frame_bitmap_words(uint64_t nframes)
{
	return (nframes + 63) / 64;
}

/* Starts with every frame in use; words must hold frame_bitmap_words(). */
void frame_bitmap_init(struct frame_bitmap *fb, uint64_t *words, uint64_t nframes);

/*
 * Marks [first, first + count) free or used; frames beyond nframes are
 * ignored, frames already in that state are left as they are. For feeding
 * the map from the firmware's memory map.
 */
void frame_bitmap_set_free(struct frame_bitmap *fb, uint64_t first, uint64_t count);
void frame_bitmap_set_used(struct frame_bitmap *fb, uint64_t first, uint64_t count);

/*
 * Finds count contiguous free frames, lowest first, marks them used and
 * stores the first frame number in *first. Returns 0, -EINVAL for count 0,
 * or -ENOMEM.
 */
int frame_bitmap_alloc(struct frame_bitmap *fb, uint64_t count, uint64_t *first);

/*
 * Frees count frames from first. Returns -EINVAL, changing nothing, for
 * count 0 or if any of them is out of range or already free (a double free).
 */
int frame_bitmap_free(struct frame_bitmap *fb, uint64_t first, uint64_t count);

bool frame_bitmap_is_free(const struct frame_bitmap *fb, uint64_t frame);

#endif
