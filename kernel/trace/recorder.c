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

	ttrace_cursor_init_last(&c, r, window);
	c.end = head;
	/*
	 * The reader stops below head only at a slot whose writer will never
	 * commit (or a clear that will never end): with every CPU stopped,
	 * there is nothing to wait for.
	 */
	while (n < max) {
		n += ttrace_ring_read(r, &c, out + n, max - n);
		if (n == max || ttrace_ring_wait(r, &c, 0, 0) != TTRACE_WAIT_SKIPPED) {
			break;
		}
	}
	*skipped = c.stuck;
	return n;
}
