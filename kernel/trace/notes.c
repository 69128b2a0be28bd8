/*
 * notes: a table of the notes, two a kind (notes.h). One lock guards it:
 * a note is copied in or out whole under it, so a reader never sees half
 * of one; nothing else takes it, and nothing is taken under it.
 */
#include "trace/notes.h"

#include "abi/errno.h"
#include "abi/trace.h"
#include "common/trace_names.h"
#include "lib/spinlock.h"
#include "lib/string.h"

static struct spinlock lock = SPINLOCK_INIT;
static uint8_t notes[TTRACE_KIND_LIMIT][2][TTRACE_NOTE_BYTES]; /* [lock] [kind][trigger?] */

int notes_copy(uint32_t op, uint16_t kind, uint8_t buf[TTRACE_NOTE_BYTES])
{
	if (op > TTRACE_NOTE_GET_TRIGGER || !ttrace_kind_info(kind)) {
		return -EINVAL;
	}
	uint8_t *note = notes[kind][op >= TTRACE_NOTE_SET_TRIGGER];
	bool get = op == TTRACE_NOTE_GET_FILTER || op == TTRACE_NOTE_GET_TRIGGER;

	spin_lock(&lock);
	memcpy(get ? buf : note, get ? note : buf, TTRACE_NOTE_BYTES);
	spin_unlock(&lock);
	return 0;
}
