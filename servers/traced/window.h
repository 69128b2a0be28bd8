/*
 * window: traced's side of the export window's ring (abi/trace_file.h,
 * THE EXPORT WINDOW, steps E1 to E3), the one producer. A save or a
 * recording reserves room for a record, fills it in place, and publishes
 * it; the host takes records as they come, reading them where they lie,
 * so a file's bytes cross to the host with no copy past the one that puts
 * them in the window. The window's bytes past the ring are traced's own.
 */
#ifndef SPOOR_TRACED_WINDOW_H
#define SPOOR_TRACED_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#define WINDOW_PRIVATE_SIZE (2u * 1024 * 1024) /* the window's end that stays traced's */

/*
 * Lays the ring out in the mapped window (win, size bytes), or keeps it as
 * a killed traced left it if it is already ours: 0, or -ENOSPC when the
 * window is too small for a ring.
 */
int window_init(uint8_t *win, size_t size);

/* The largest record window_reserve() gives: half the ring, so one fills while the host takes the
 * other. */
size_t window_record_max(void);

/* The window's private bytes past the ring (WINDOW_PRIVATE_SIZE of them). */
uint8_t *window_private(void);

#define WINDOW_WAIT 1u /* window_reserve(): wait for the host to make room */

/*
 * Room for a record of up to len bytes (a multiple of 8, at most
 * window_record_max()) at *at, contiguous. 0; -EAGAIN when the ring has
 * no room now (without WINDOW_WAIT); -EHOSTDOWN when the host made none
 * within its answer time; -EIO or -ENOSPC when the host dropped the file
 * in progress (a bad record, its limit for this run). One reservation at
 * a time: the next call replaces it.
 */
int window_reserve(size_t len, uint32_t flags, uint8_t **at);

/* Publishes the first len bytes of the reservation (len at most what it reserved). */
void window_publish(size_t len);

#endif
