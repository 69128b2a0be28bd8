/*
 * recorder: the flight recorder's read (see recorder.h).
 */
#include "trace/recorder.h"

size_t recorder_read(const struct ttrace_ring *r, uint64_t window, struct ttrace_record *out,
		     size_t max, uint64_t *skipped)
{
	struct ttrace_cursor c;
	size_t n = 0;
	/* relaxed: the CPUs are stopped; R1-R5 check whatever this finds */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_RELAXED);

	*skipped = 0;
	ttrace_cursor_init_last(&c, r, window);
	while (n < max) {
		n += ttrace_ring_read(r, &c, out + n, max - n);
		if (n == max || c.index >= head) {
			break;
		}
		/*
		 * The reader stopped below head: a slot whose writer will never
		 * commit. What follows it is whole; the slot is not an event.
		 */
		c.index++;
		c.synced = false;
		(*skipped)++;
	}
	return n;
}
