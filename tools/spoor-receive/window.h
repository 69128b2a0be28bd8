/*
 * window: the host's side of the export window's ring (abi/trace_file.h,
 * THE EXPORT WINDOW), steps E4 to E6. It reads the window in place and
 * trusts none of it: every size, offset and sequence word is checked
 * against the window's own bounds and the tail it keeps itself, each
 * record's head is copied before it is checked, and a failed check is
 * one line of text, never a read outside the window. It knows nothing of
 * files: each record's bytes go to the caller's sink.
 */
#ifndef SPOOR_RECEIVE_WINDOW_H
#define SPOOR_RECEIVE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct window {
	uint8_t *base; /* the mapping (a test's buffer), or NULL */
	size_t size;   /* of the mapping */
	uint64_t tail; /* the host's own: bytes taken */
};

/*
 * Receives one record's len bytes at p (in the window: they may change
 * under it, which only spoils the guest's own file); NULL or why it
 * could not take them (the ring stops there).
 */
typedef const char *window_sink(void *ctx, const uint8_t *p, uint64_t len);

/*
 * Takes every record published past w->tail, in order, into sink, moving
 * w->tail and the window's tail past each one taken. NULL, or one line
 * saying what was wrong with the window (or the sink's refusal); the
 * records before it were taken.
 */
const char *window_take(struct window *w, window_sink *sink, void *ctx);

/*
 * Discards whatever is published: w->tail and the window's tail jump to
 * the window's head when it is a record boundary the ring can have (else
 * they stay). NULL, or why the window is bad.
 */
const char *window_skip(struct window *w);

/* Tells the guest that the host dropped the file in progress (TTRACE_EXPORT_REFUSED_*). */
void window_refuse(struct window *w, uint32_t why);

#endif
