/*
 * tracedat_class: ftrace event formats from fields.h's classes, and the
 * records in them (see tracedat_class.h).
 */
#include "tools/spoor-trace/tracedat_class.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/proc.h"
#include "common/trace_names.h"

/* Linux's priority of a task of nice 0, which Spoor's threads all show. */
#define LINUX_PRIO_NORMAL 120

/* ftrace's common_type is 16 bits. */
#define TDAT_ID_MAX 0xffff

/* One field of Linux's scheduling events: where its value comes from. */
struct linux_field {
	const char *name;
	uint32_t src;
	const char *from; /* the Spoor field it is made from */
};

static const struct linux_field sched_switch[] = {
    {"prev_comm", TDAT_SRC_COMM, "prev_tid"}, {"prev_pid", TDAT_SRC_PID, "prev_tid"},
    {"prev_prio", TDAT_SRC_PRIO, NULL},	      {"prev_state", TDAT_SRC_STATE, "prev_state"},
    {"next_comm", TDAT_SRC_COMM, "next_tid"}, {"next_pid", TDAT_SRC_PID, "next_tid"},
    {"next_prio", TDAT_SRC_PRIO, NULL},	      {NULL, 0, NULL},
};

static const struct linux_field sched_wakeup[] = {
    {"comm", TDAT_SRC_COMM, "tid"},
    {"pid", TDAT_SRC_PID, "tid"},
    {"prio", TDAT_SRC_PRIO, NULL},
    {"target_cpu", TDAT_SRC_SPOOR, "cpu"},
    {NULL, 0, NULL},
};

/* Linux's task states (include/linux/sched.h) that a Spoor thread state maps to. */
#define LINUX_TASK_RUNNING	 0x00
#define LINUX_TASK_INTERRUPTIBLE 0x01
#define LINUX_EXIT_DEAD		 0x10

static uint64_t linux_state(uint64_t state)
{
	switch (state) {
	case THREAD_RUNNING:
	case THREAD_READY:
		return LINUX_TASK_RUNNING;
	case THREAD_EXITED:
		return LINUX_EXIT_DEAD;
	default:
		return LINUX_TASK_INTERRUPTIBLE;
	}
}

/* Linux's fields of kind, or NULL for a kind Linux has no event for. */
static const struct linux_field *linux_fields(uint32_t kind)
{
	if (kind == TTRACE_KIND_sched_switch) {
		return sched_switch;
	}
	return kind == TTRACE_KIND_sched_wakeup ? sched_wakeup : NULL;
}

/* s with every character a format file cannot hold in a name as '_'; never empty. */
static void name_copy(char *out, size_t size, const char *s)
{
	size_t n = 0;

	if (*s >= '0' && *s <= '9') {
		out[n++] = '_';
	}
	for (; *s && n + 1 < size; s++) {
		int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			 (*s >= '0' && *s <= '9') || *s == '_';
		out[n++] = ok ? *s : '_';
	}
	if (!n) {
		out[n++] = '_';
	}
	out[n] = '\0';
}

static int spoor_index(const struct tfields *tf, const char *name)
{
	for (size_t i = 0; i < tf->n; i++) {
		if (!strcmp(tf->f[i].name, name)) {
			return (int)i;
		}
	}
	return -1;
}

static struct tdat_field *add(struct tdat_class *c, const char *name, uint32_t src, uint32_t from,
			      uint32_t type, uint32_t size)
{
	struct tdat_field *f = &c->f[c->n++];

	memset(f, 0, sizeof(*f));
	name_copy(f->name, sizeof(f->name), name);
	f->src = src;
	f->from = from;
	f->type = type;
	f->size = size;
	return f;
}

/* Spoor's field i of tf as a field of c. */
static void add_spoor(struct tdat_class *c, const struct tfields *tf, const char *name, size_t i)
{
	const struct tfield *s = &tf->f[i];
	uint32_t size = s->type == TFIELD_TEXT	  ? 4
			: s->type == TFIELD_BYTES ? s->nbytes
						  : s->bits / 8;

	add(c, name, TDAT_SRC_SPOOR, (uint32_t)i, s->type, size)->values = s->values;
}

/* Whether c has a field called name already. */
static bool taken(const struct tdat_class *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!strcmp(c->f[i].name, name)) {
			return true;
		}
	}
	return false;
}

/* c's fields from tf (no values), Linux's first for a scheduling kind; c->fixed. */
static void layout(struct tdat_class *c, const struct tfields *tf)
{
	const struct linux_field *lf = c->type == TCLASS_KIND ? linux_fields(c->kind) : NULL;
	bool used[TFIELDS_MAX] = {false};

	for (; lf && lf->name; lf++) {
		int i = lf->from ? spoor_index(tf, lf->from) : 0;
		if (i < 0) {
			continue; /* the kinds table renamed it: Linux's field goes */
		}
		if (lf->src == TDAT_SRC_COMM) {
			add(c, lf->name, lf->src, (uint32_t)i, TFIELD_BYTES, TDAT_COMM_LEN);
		} else if (lf->src == TDAT_SRC_SPOOR) {
			add_spoor(c, tf, lf->name, (size_t)i);
			used[i] = true;
		} else if (lf->src == TDAT_SRC_STATE) {
			add(c, lf->name, lf->src, (uint32_t)i, TFIELD_SIGNED, 8);
		} else {
			add(c, lf->name, lf->src, (uint32_t)i, TFIELD_SIGNED, 4);
		}
	}
	for (size_t i = 0; i < tf->n; i++) {
		char name[TFIELD_NAME_MAX + 1];
		snprintf(name, sizeof(name), "%s%s", taken(c, tf->f[i].name) ? "spoor_" : "",
			 tf->f[i].name);
		if (!used[i]) {
			add_spoor(c, tf, name, i);
		}
	}
	uint32_t at = TDAT_COMMON_SIZE;
	for (size_t i = 0; i < c->n; i++) {
		struct tdat_field *f = &c->f[i];
		uint32_t align = f->type == TFIELD_BYTES ? 1 : f->size;
		at = (at + align - 1) & ~(align - 1);
		f->offset = at;
		at += f->size;
	}
	c->fixed = at;
}

/* Adds the class tc (fields tf) with ID id; its index, or -ENOMEM. */
static int add_class(struct tdat_classes *cs, const struct tclass *tc, const struct tfields *tf,
		     uint32_t id)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 64;
		struct tdat_class *more = realloc(cs->c, cap * sizeof(*more));
		if (!more) {
			return -ENOMEM;
		}
		cs->c = more;
		cs->cap = cap;
	}
	struct tdat_class *c = &cs->c[cs->n];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->type = tc->type;
	c->kind = tc->kind;
	c->ukey = tc->ukey;
	c->system = "spoor";
	if (tc->type == TCLASS_USER) {
		c->system = "user_events";
		name_copy(c->name, sizeof(c->name), tc->name + strlen("user:"));
	} else {
		name_copy(c->name, sizeof(c->name), tc->name);
		if (tc->type == TCLASS_KIND && linux_fields(tc->kind)) {
			c->system = "sched";
		}
	}
	layout(c, tf);
	return (int)cs->n++;
}

int tdat_classes_init(struct tdat_classes *cs, struct tview *v)
{
	memset(cs, 0, sizeof(*cs));
	for (uint32_t kind = 0; kind < TTRACE_KIND_LIMIT; kind++) {
		const struct ttrace_kind_info *k = ttrace_kind_info(kind);
		struct tclass tc;

		if (!k) {
			continue;
		}
		memset(&tc, 0, sizeof(tc));
		tc.type = kind == TTRACE_KIND_user ? TCLASS_USER_RAW : TCLASS_KIND;
		tc.kind = kind;
		snprintf(tc.name, sizeof(tc.name), "%s", k->name);
		tfields_get(v, &tc, NULL, &cs->scratch);
		if (add_class(cs, &tc, &cs->scratch, kind) < 0) {
			tdat_classes_fini(cs);
			return -ENOMEM;
		}
	}
	cs->next_id = TTRACE_KIND_LIMIT;
	return 0;
}

void tdat_classes_fini(struct tdat_classes *cs)
{
	free(cs->c);
	cs->c = NULL;
	cs->n = cs->cap = 0;
}

static int find(const struct tdat_classes *cs, const struct tclass *tc)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct tdat_class *c = &cs->c[i];
		if (c->type == tc->type && c->kind == tc->kind && c->ukey == tc->ukey) {
			return (int)i;
		}
	}
	return -1;
}

int tdat_class_of(struct tdat_classes *cs, struct tview *v, const struct ttrace_record *rec,
		  struct tfields *tf)
{
	struct tclass tc;

	tfields_classify(v, rec, &tc);
	tfields_get(v, &tc, rec, tf);
	int i = find(cs, &tc);
	if (i >= 0) {
		return i;
	}
	if (cs->next_id > TDAT_ID_MAX) {
		return -E2BIG;
	}
	tfields_get(v, &tc, NULL, &cs->scratch);
	i = add_class(cs, &tc, &cs->scratch, cs->next_id);
	if (i >= 0 && cs->c[i].fixed > TDAT_RECORD_FIXED_MAX) {
		/*
		 * A definition whose arrays add up to more than a page holds
		 * (a hostile file's): its events go raw, as spoor's user.
		 */
		cs->n--;
		tc.type = TCLASS_USER_RAW;
		tc.ukey = 0;
		tfields_get(v, &tc, rec, tf);
		return find(cs, &tc);
	}
	if (i >= 0) {
		cs->next_id++;
	}
	return i;
}

static void put_le(uint8_t *p, uint64_t v, uint32_t bytes)
{
	for (uint32_t b = 0; b < bytes; b++) {
		p[b] = (uint8_t)(v >> (8 * b));
	}
}

size_t tdat_record(const struct tdat_class *c, const struct tfields *tf, const struct tdat_tasks *t,
		   uint32_t pid, uint8_t *buf, size_t max)
{
	size_t at = c->fixed;

	memset(buf, 0, c->fixed);
	put_le(buf, c->id, 2);
	put_le(buf + 4, pid, 4); /* common_flags and common_preempt_count stay 0 */
	for (size_t i = 0; i < c->n; i++) {
		const struct tdat_field *f = &c->f[i];
		const struct tfield *s = &tf->f[f->from];
		uint8_t *p = buf + f->offset;

		switch (f->src) {
		case TDAT_SRC_COMM:
			tdat_task_comm(t, (uint32_t)s->value, (char *)p);
			break;
		case TDAT_SRC_PID:
			put_le(p, tdat_task_pid(t, (uint32_t)s->value), f->size);
			break;
		case TDAT_SRC_PRIO:
			put_le(p, LINUX_PRIO_NORMAL, f->size);
			break;
		case TDAT_SRC_STATE:
			put_le(p, linux_state(s->value), f->size);
			break;
		default:
			if (f->type == TFIELD_BYTES) {
				memcpy(p, s->bytes, f->size);
			} else if (f->type != TFIELD_TEXT) {
				put_le(p, s->value, f->size);
			} else {
				/* __data_loc: the string's length (with its NUL) << 16 | its offset
				 */
				size_t room = max - at - (c->n - i);
				size_t len = strnlen(s->text, sizeof(s->text));
				len = len < room ? len : room;
				memcpy(buf + at, s->text, len);
				buf[at + len] = '\0';
				put_le(p, (uint64_t)(len + 1) << 16 | at, 4);
				at += len + 1;
			}
			break;
		}
	}
	return at;
}
