/*
 * fields: an event as typed fields, for the converters whose output has
 * types (CTF's event classes, Perfetto's args). Each event belongs to a
 * class: its kind, with the arguments abi/trace_kinds.def lists; a user
 * event with its definition (abi/uevent.h), one class per definition; or
 * a fallback holding the words as the text shows them (an unknown kind,
 * a user event whose definition was evicted or whose payload does not
 * fit it). Values are those the text line shows: integers as numbers (a
 * value of a named list, values, as its name where the output has names),
 * strings with the text's own escaping (common/ formatters), so a
 * converter and `spoor-trace text` never disagree.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FIELDS_H
#define SPOOR_TOOLS_SPOOR_TRACE_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "abi/uevent.h"
#include "common/trace_values.h"
#include "tools/spoor-trace/view.h"

#define TCLASS_KIND	0 /* a kind of the table, not user: fields from its args */
#define TCLASS_UNKNOWN	1 /* a kind the table does not know: words d0..d4 */
#define TCLASS_USER	2 /* a user event decoded with its definition */
#define TCLASS_USER_RAW 3 /* a user event without a usable definition */

/* Longest class name: "user:" and a user event's name. */
#define TCLASS_NAME_MAX (5 + UEVENT_NAME_MAX)

struct tclass {
	uint32_t type;			/* TCLASS_* */
	uint32_t kind;			/* the event's kind */
	uint64_t ukey;			/* TCLASS_USER: UEVENT_AUX_ID(id, generation) */
	const struct uevent_def *def;	/* TCLASS_USER: the decoder's, until its next lookup */
	char name[TCLASS_NAME_MAX + 1]; /* "mem_pf", "kind_200", "user:demo", "user" */
};

#define TFIELD_UNSIGNED 0 /* an integer, shown in decimal */
#define TFIELD_HEX	1 /* an unsigned integer, shown as 0x... */
#define TFIELD_SIGNED	2 /* a signed integer */
#define TFIELD_TEXT	3 /* a string, as the text shows it without its quotes */
#define TFIELD_BYTES	4 /* nbytes raw bytes (unsigned char[N], struct) */

#define TFIELDS_MAX	(UEVENT_FIELDS_MAX + 8)
#define TFIELD_NAME_MAX UEVENT_FIELD_NAME_MAX
#define TFIELD_TEXT_MAX 1024 /* 200 payload bytes escaped as \xNN, and more */

struct tfield {
	char name[TFIELD_NAME_MAX + 1];
	uint32_t type;			    /* TFIELD_* */
	uint32_t bits;			    /* integers: 8, 16, 32 or 64 */
	uint32_t nbytes;		    /* TFIELD_BYTES */
	uint64_t value;			    /* integers; signed ones sign-extended */
	const struct ttrace_values *values; /* integers: the names of values, or NULL */
	const uint8_t *bytes; /* TFIELD_BYTES: into the owning struct tfields' payload */
	char text[TFIELD_TEXT_MAX];
};

struct tfields {
	size_t n;
	struct tfield f[TFIELDS_MAX];
	uint8_t payload[UEVENT_PAYLOAD_MAX]; /* a user event's */
};

/* The class of event rec (looks its user-event definition up through v's decoder). */
void tfields_classify(struct tview *v, const struct ttrace_record *rec, struct tclass *c);

/*
 * The fields of class c into *out: names and types, and with rec (an
 * event of class c) their values; without (NULL), values are zero.
 * TCLASS_USER needs c->def valid.
 */
void tfields_get(struct tview *v, const struct tclass *c, const struct ttrace_record *rec,
		 struct tfields *out);

#endif
