/*
 * uevent_table: the table of user events, their status page and their writes
 * (see uevent_table.h and abi/uevent.h).
 */
#include "trace/uevent_table.h"

#include "abi/errno.h"
#include "abi/trace.h"
#include "common/uevent_parse.h"
#include "common/uevent_payload.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/usercopy.h"
#include "trace/aux_names.h"
#include "trace/emit.h"
#include "trace/ktrace.h"

struct uevent {
	uint32_t id;	       /* [I] */
	uint32_t generation;   /* [I] */
	uint32_t refs;	       /* [a] capabilities naming it */
	bool selected;	       /* [lock] enabled on its own */
	uint64_t written;      /* [a] */
	uint64_t rejected;     /* [a] */
	struct uevent_def def; /* [I] */
};

static struct spinlock lock = SPINLOCK_INIT;
static struct uevent *events[UEVENT_MAX]; /* [lock] */
static uint32_t generations[UEVENT_MAX];  /* [lock] of each id: its reuses */
static bool all_selected;		  /* [lock] UEVENT_OP_ENABLE_ALL */
static struct memobj *status_obj;	  /* [I] after uevent_init() */
static uint8_t *status;			  /* [I] its page; bytes [lock], read by anyone */

void uevent_init(void)
{
	if (memobj_create(NULL, 1, &status_obj)) {
		return;
	}
	status = phys_to_virt(status_obj->frames[0]);
	/*
	 * The user category stands for every user event, as traced makes it
	 * for `trace on user` (UEVENT_OP_ENABLE_ALL with the category): a
	 * ttrace= command line that names it set the mask without traced, so
	 * the selection it implies is made here. Boot: one CPU, no lock needed.
	 */
	all_selected = __atomic_load_n(&ttrace_mask, __ATOMIC_RELAXED) & TTRACE_CAT(USER);
}

struct memobj *uevent_status_object(void)
{
	return status_obj;
}

/* Lock held. */
static bool enabled(const struct uevent *ev)
{
	return __atomic_load_n(&ttrace_mask, __ATOMIC_RELAXED) & TTRACE_CAT(USER) &&
	       (all_selected || ev->selected);
}

/* Lock held. */
static void refresh_locked(void)
{
	for (uint32_t id = 0; id < UEVENT_MAX && status; id++) {
		/* relaxed: a stale byte costs a program one write too many or too few */
		__atomic_store_n(&status[id], events[id] && enabled(events[id]), __ATOMIC_RELAXED);
	}
}

void uevent_refresh(void)
{
	uint64_t flags = spin_lock_irqsave(&lock);
	refresh_locked();
	spin_unlock_irqrestore(&lock, flags);
}

/* Lock held: the event named name, or NULL. */
static struct uevent *find(const char *name)
{
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (events[id] && !strcmp(events[id]->def.name, name)) {
			return events[id];
		}
	}
	return NULL;
}

/* Records the definition in the aux buffer, so that readers can decode its events. */
static void record_definition(const struct uevent *ev)
{
	char text[UEVENT_DESC_MAX + 1];

	uevent_def_format(&ev->def, text, sizeof(text));
	ttrace_aux_name(TTRACE_AUX_USER_EVENT, UEVENT_AUX_ID(ev->id, ev->generation), text);
}

int uevent_register(const char *desc, size_t len, struct uevent **out)
{
	struct uevent *ev = kzalloc(sizeof(*ev));
	bool made = false;
	int err;

	if (!ev) {
		return -ENOMEM;
	}
	err = uevent_parse(desc, len, &ev->def, NULL, 0);
	if (err) {
		kfree(ev);
		return err;
	}
	uint64_t flags = spin_lock_irqsave(&lock);
	struct uevent *old = find(ev->def.name);
	if (old) {
		err = uevent_def_same(&old->def, &ev->def) ? 0 : -EADDRINUSE;
		if (!err) {
			uevent_get(old);
			*out = old;
		}
	} else {
		err = -ENOSPC;
		for (uint32_t id = 0; id < UEVENT_MAX && err; id++) {
			if (!events[id]) {
				ev->id = id;
				ev->generation = ++generations[id];
				ev->refs = 1;
				events[id] = ev;
				refresh_locked();
				*out = ev;
				made = true;
				err = 0;
			}
		}
	}
	spin_unlock_irqrestore(&lock, flags);
	if (made) {
		record_definition(ev);
	} else {
		kfree(ev);
	}
	return err;
}

void uevent_get(struct uevent *ev)
{
	__atomic_add_fetch(&ev->refs, 1, __ATOMIC_RELAXED);
}

/* Lock held: nobody holds ev (its last capability is gone) and nobody enables it. */
static bool idle(const struct uevent *ev)
{
	/* acquire: pairs with the release in uevent_put(), so no writer still uses it */
	return !__atomic_load_n(&ev->refs, __ATOMIC_ACQUIRE) && !all_selected && !ev->selected;
}

/*
 * Lock held: takes the idle events out of the table, which frees their
 * ids for reuse, into gone[] (UEVENT_MAX of them) for the caller to free
 * once the lock is dropped. Returns how many.
 */
static uint32_t release_idle_locked(struct uevent **gone)
{
	uint32_t n = 0;

	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (events[id] && idle(events[id])) {
			gone[n++] = events[id];
			events[id] = NULL;
		}
	}
	return n;
}

void uevent_put(struct uevent *ev)
{
	struct uevent *gone = NULL;

	/* release: this holder's writes to the event come before the last one frees it */
	if (__atomic_sub_fetch(&ev->refs, 1, __ATOMIC_RELEASE)) {
		return;
	}
	/*
	 * The last holder let go: an event nobody enables is released. Checked
	 * again under the lock, where a registration may have taken it since.
	 */
	uint64_t flags = spin_lock_irqsave(&lock);
	if (events[ev->id] == ev && idle(ev)) {
		events[ev->id] = NULL;
		gone = ev;
		refresh_locked();
	}
	spin_unlock_irqrestore(&lock, flags);
	kfree(gone);
}

uint32_t uevent_id(const struct uevent *ev)
{
	return ev->id;
}

static int rejected(struct uevent *ev, int err)
{
	__atomic_add_fetch(&ev->rejected, 1, __ATOMIC_RELAXED);
	return err;
}

int uevent_write(struct uevent *ev, uint64_t payload, uint64_t len)
{
	uint64_t words[TTRACE_EVENT_WORDS_MAX] = {0};

	if (!status || !__atomic_load_n(&status[ev->id], __ATOMIC_RELAXED)) {
		return rejected(ev, -EBADF);
	}
	if (len > UEVENT_PAYLOAD_MAX) {
		return rejected(ev, -E2BIG);
	}
	if (len && copy_from_user(&words[1], payload, len)) {
		return rejected(ev, -EFAULT);
	}
	int err = uevent_payload_check(&ev->def, &words[1], len);
	if (err) {
		return rejected(ev, err);
	}
	words[0] = UEVENT_WORD0(ev->id, ev->generation, len);
	__atomic_add_fetch(&ev->written, 1, __ATOMIC_RELAXED);
	return ttrace_emit_user(words, (uint8_t)(1 + (len + 7) / 8)) ? 0 : -ENOSPC;
}

/* Lock held. */
static void info_locked(const struct uevent *ev, struct uevent_info *info)
{
	memset(info, 0, sizeof(*info));
	info->id = ev->id;
	info->generation = ev->generation;
	info->holders = __atomic_load_n(&ev->refs, __ATOMIC_ACQUIRE);
	info->enabled = enabled(ev);
	info->selected = ev->selected;
	info->written = __atomic_load_n(&ev->written, __ATOMIC_RELAXED);
	info->rejected = __atomic_load_n(&ev->rejected, __ATOMIC_RELAXED);
	uevent_def_format(&ev->def, info->desc, sizeof(info->desc));
}

/* Lock held: UEVENT_OP_DISABLE of one event while every event is selected. */
static void deselect_one_of_all(struct uevent *ev)
{
	all_selected = false;
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (events[id]) {
			events[id]->selected = events[id] != ev;
		}
	}
}

int uevent_control(uint32_t op, uint64_t id, struct uevent_info *info)
{
	struct uevent *gone[UEVENT_MAX];
	uint32_t ngone = 0;
	int err = 0;

	if (op > UEVENT_OP_DELETE || (op == UEVENT_OP_INFO && !info) ||
	    (id >= UEVENT_MAX && op != UEVENT_OP_ENABLE_ALL && op != UEVENT_OP_DISABLE_ALL)) {
		return -EINVAL;
	}
	uint64_t flags = spin_lock_irqsave(&lock);
	struct uevent *ev = id < UEVENT_MAX ? events[id] : NULL;
	switch (op) {
	case UEVENT_OP_ENABLE_ALL:
		all_selected = true;
		break;
	case UEVENT_OP_DISABLE_ALL:
		all_selected = false;
		for (uint32_t i = 0; i < UEVENT_MAX; i++) {
			if (events[i]) {
				events[i]->selected = false;
			}
		}
		break;
	default:
		if (!ev) {
			err = -ENOENT;
		} else if (op == UEVENT_OP_INFO) {
			info_locked(ev, info);
		} else if (op == UEVENT_OP_ENABLE) {
			ev->selected = true;
		} else if (op == UEVENT_OP_DISABLE && all_selected) {
			deselect_one_of_all(ev);
		} else if (op == UEVENT_OP_DISABLE) {
			ev->selected = false;
		} else if (__atomic_load_n(&ev->refs, __ATOMIC_ACQUIRE)) {
			err = -EBUSY; /* DELETE: a program holds it */
		} else {
			ev->selected =
			    false; /* DELETE: a consumer's interest alone does not keep it */
			if (all_selected) {
				events[id] = NULL;
				gone[ngone++] = ev;
			}
		}
		break;
	}
	/* A DELETE or DISABLE may leave events nobody holds or enables: they go. */
	if (!err && op != UEVENT_OP_INFO) {
		ngone += release_idle_locked(gone + ngone);
	}
	refresh_locked();
	spin_unlock_irqrestore(&lock, flags);
	for (uint32_t i = 0; i < ngone; i++) {
		kfree(gone[i]);
	}
	return err;
}
