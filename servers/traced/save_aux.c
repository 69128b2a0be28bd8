/*
 * save_aux: what a save below READ carries of the aux ring (abi/trace_file.h,
 * AUX_RING). A SELF caller's file holds its own events, and of the ring's
 * records only those they refer to: the names of its processes (PROC, by
 * the scope's pids), of the threads its events name (THREAD, by tid), the
 * definitions of the user events it wrote (USER_EVENT, by id and
 * generation) and any record an event's string argument points at (by
 * position). Every other record is blanked in traced's copy before it is
 * sent: it keeps its position and length, so references stay what they
 * are, but becomes a TEXT record with id 0 and zero bytes.
 *
 * The references go into a fixed hash set as the events leave. Should it
 * fill, a reference it could not take is blanked too: a file may then
 * lack a name of its own (printed as '?'), never carry another's.
 */
#include <string.h>

#include "common/trace_aux.h"
#include "common/trace_names.h"
#include "servers/traced/save_aux.h"
#include "servers/traced/scope.h"
#include "servers/traced/state.h"

/* What a key names, in its top byte; the value fits the other 56 bits. */
#define KEY_THREAD (1ull << 56)
#define KEY_UEVENT (2ull << 56)
#define KEY_POS	   (3ull << 56)
#define VALUE_MASK ((1ull << 56) - 1)

#define REFS_SLOTS 4096 /* a power of two; 0 marks a free slot (no key is 0) */
#define REFS_MAX   (REFS_SLOTS / 2)

static struct {
	uint64_t slot[REFS_SLOTS];
	uint32_t n;
} refs; /* one save at a time */

void save_aux_reset(void)
{
	memset(&refs, 0, sizeof(refs));
}

static uint32_t hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the top bits are well mixed */
	return (uint32_t)(key >> 52) & (REFS_SLOTS - 1);
}

static void add(uint64_t key)
{
	for (uint32_t i = hash(key);; i = (i + 1) & (REFS_SLOTS - 1)) {
		if (refs.slot[i] == key) {
			return;
		}
		if (!refs.slot[i]) {
			/* Half full at most, so lookups stay short and always end. */
			if (refs.n < REFS_MAX) {
				refs.slot[i] = key;
				refs.n++;
			}
			return;
		}
	}
}

static bool has(uint64_t key)
{
	for (uint32_t i = hash(key); refs.slot[i]; i = (i + 1) & (REFS_SLOTS - 1)) {
		if (refs.slot[i] == key) {
			return true;
		}
	}
	return false;
}

/* The string arguments (format 's') of a head entry: references to records by position. */
static void note_strings(const struct ttrace_entry *e)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(e->kind);
	const char *spec = k ? k->args : "";
	struct ttrace_arg arg;

	for (uint32_t i = 0; i < TTRACE_HEAD_WORDS && ttrace_arg_next(&spec, &arg) == 1; i++) {
		if (arg.format == 's') {
			add(KEY_POS | (e->data[i] & VALUE_MASK));
		}
	}
}

void save_aux_note(const uint8_t *data, size_t len)
{
	const union ttrace_slot *s = (const union ttrace_slot *)data;

	for (size_t i = 0; i < len / sizeof(*s); i++) {
		const struct ttrace_entry *e = &s[i].e;
		/* Heads only: a loss marker has ts 0, a continuation bit 0 of ts set. */
		if (!e->ts || e->ts & 1) {
			continue;
		}
		add(KEY_THREAD | e->tid);
		if (e->kind == TTRACE_KIND_user) {
			add(KEY_UEVENT | UEVENT_AUX_ID(UEVENT_WORD0_ID(e->data[0]),
						       UEVENT_WORD0_GEN(e->data[0])));
		}
		note_strings(e);
	}
}

static bool wanted(const struct ttrace_aux_record *rec, const struct scope *scope)
{
	if (has(KEY_POS | (rec->pos & VALUE_MASK))) {
		return true;
	}
	switch (rec->tag) {
	case TTRACE_AUX_PROC:
		return scope_has(scope, (uint32_t)rec->id); /* id: pid | parent << 32 */
	case TTRACE_AUX_THREAD:
		return rec->id <= UINT32_MAX && has(KEY_THREAD | rec->id);
	case TTRACE_AUX_USER_EVENT:
		return has(KEY_UEVENT | (rec->id & VALUE_MASK));
	default:
		return false;
	}
}

void save_aux_blank(const struct ttrace_aux_view *view, const struct scope *scope)
{
	struct ttrace_aux_view v = *view;
	struct ttrace_aux_record rec;
	const char *str;

	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		if (wanted(&rec, scope)) {
			continue;
		}
		/* The view walks traced's own copy (traced.aux_copy): writable. */
		uint8_t *at = (uint8_t *)(uintptr_t)view->words + (rec.pos - view->start);
		struct ttrace_aux_record blank = {
		    .pos = rec.pos,
		    .tag = TTRACE_AUX_TEXT,
		    .len = rec.len,
		    .flags = rec.flags,
		};
		memcpy(at, &blank, sizeof(blank));
		memset(at + sizeof(blank), 0, TTRACE_AUX_RECORD_SIZE(rec.len) - sizeof(blank));
	}
}
