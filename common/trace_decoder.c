/*
 * trace_decoder: the syscall name table and the cache of user-event
 * definitions (see trace_decoder.h), both filled from the aux buffer
 * with its lock-free reader.
 */
#include "common/trace_decoder.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "common/trace_aux.h"
#include "common/uevent_parse.h"

void ttrace_decoder_init(struct ttrace_decoder *d, const struct ttrace_area *a,
			 struct ttrace_uevent_slot *uevents)
{
	struct ttrace_aux_view v;
	struct ttrace_aux_record rec;
	const char *str;

	__builtin_memset(d, 0, sizeof(*d));
	d->area = a;
	d->uevents = uevents;
	if (uevents) {
		__builtin_memset(uevents, 0, sizeof(*uevents) * UEVENT_MAX);
	}
	/* The durable records never change: pointers into them stay right. */
	ttrace_aux_durable(a, &v);
	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		if (rec.tag == TTRACE_AUX_SYSCALL && rec.id < TTRACE_DECODER_SYSCALLS) {
			d->syscall_name[rec.id] = str;
			d->syscall_len[rec.id] = rec.len;
		}
	}
}

const char *ttrace_decoder_syscall(const struct ttrace_decoder *d, uint64_t nr, size_t *len)
{
	if (nr >= TTRACE_DECODER_SYSCALLS || !d->syscall_name[nr]) {
		return NULL;
	}
	*len = d->syscall_len[nr];
	return d->syscall_name[nr];
}

/* What aux_find() looks for (the id's bits under id_mask), and the newest match so far. */
struct find {
	uint16_t tag;
	uint64_t id;
	uint64_t id_mask;
	uint64_t pos;
	bool found;
};

static bool match(void *ctx, const struct ttrace_aux_record *rec, uint64_t pos)
{
	struct find *f = ctx;

	if (rec->tag == f->tag && (rec->id & f->id_mask) == f->id) {
		f->pos = pos; /* keep going: a newer one wins */
		f->found = true;
	}
	return true;
}

/*
 * The newest aux ring record with tag and an id whose bits under id_mask
 * are id, its string into text (NUL-terminated): 0 or -ENOENT.
 */
static int aux_find(const struct ttrace_area *a, uint16_t tag, uint64_t id, uint64_t id_mask,
		    char *text, size_t size)
{
	struct find f = {.tag = tag, .id = id, .id_mask = id_mask};
	struct ttrace_aux_record rec;

	ttrace_aux_walk(a, match, &f);
	return f.found && ttrace_aux_lookup(a, f.pos, &rec, text, size) >= 0 ? 0 : -ENOENT;
}

const struct uevent_def *ttrace_decoder_uevent(struct ttrace_decoder *d, uint32_t id,
					       uint32_t generation)
{
	char text[TTRACE_AUX_LEN_MAX + 1];

	if (!d->uevents || id >= UEVENT_MAX || !generation) {
		return NULL;
	}
	struct ttrace_uevent_slot *s = &d->uevents[id];
	uint64_t key = UEVENT_AUX_ID(id, generation);
	/*
	 * The kernel records a definition before it hands out the capability
	 * that writes its events: one missing now was evicted, for good.
	 */
	if (s->key != key) {
		s->key = key;
		s->found = !aux_find(d->area, TTRACE_AUX_USER_EVENT, key, UINT64_MAX, text,
				     sizeof(text)) &&
			   !uevent_parse(text, __builtin_strlen(text), &s->def, NULL, 0);
	}
	return s->found ? &s->def : NULL;
}

/* A name as a line shows it: bytes that would break the line become '?'. */
static void tidy_name(char *name)
{
	for (char *p = name; *p; p++) {
		if (*p <= ' ' || *p > '~') {
			*p = '?';
		}
	}
}

const char *ttrace_decoder_comm(struct ttrace_decoder *d, uint32_t pid)
{
	struct ttrace_comm *c = &d->comm[pid % TTRACE_DECODER_COMMS];

	if (!pid) {
		return "kernel";
	}
	if (c->pid != pid) {
		c->pid = pid;
		/* A spawn record's id: pid | parent << 32 (abi/trace.h). */
		c->found =
		    !aux_find(d->area, TTRACE_AUX_PROC, pid, UINT32_MAX, c->name, sizeof(c->name));
		tidy_name(c->name);
	}
	return c->found && c->name[0] ? c->name : "?";
}

bool ttrace_decoder_thread(const struct ttrace_decoder *d, uint32_t tid, char *buf, size_t size)
{
	if (size < 2) {
		return false;
	}
	if (aux_find(d->area, TTRACE_AUX_THREAD, tid, UINT64_MAX, buf, size) || !buf[0]) {
		buf[0] = '?';
		buf[1] = '\0';
		return false;
	}
	tidy_name(buf);
	return true;
}
