/*
 * uevents: traced's side of user-defined events (abi/uevent.h). The
 * kernel keeps the events, their definitions and counters; traced
 * registers them for clients, turns them on and off by name and lists
 * them. Dumps decode their events with the definitions the kernel wrote
 * in the aux buffer (common/trace_decoder.h), not through this file.
 *
 * The ids are shared by everyone, so below CONTROL a spawn tree may make
 * at most TRACED_UEVENT_TREE_MAX live events and no one may take the last
 * TRACED_UEVENT_CONTROL_IDS free ids (abi/traced.h, REGISTER): a program
 * registering without end stops at its quota, and the shell can still
 * register when every other id is taken.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "common/format.h"
#include "servers/traced/page.h"
#include "servers/traced/request.h"
#include "servers/traced/state.h"
#include "servers/traced/tree.h"
#include "servers/traced/uevents.h"

static struct uevent_info info; /* one INFO answer at a time: traced is single-threaded */

/*
 * Who made each event (the pid whose REGISTER created its generation, and
 * its tree): below CONTROL, only they may UNREGISTER it, and the tree's
 * quota counts it while it lives. A restarted traced knows no owners:
 * then only CONTROL may unregister, and events made before count in no
 * tree's quota (the ids kept for CONTROL still hold).
 */
static struct {
	uint32_t generation;
	uint32_t pid;
	uint32_t tree;
} owner[UEVENT_MAX];

static long query(uint32_t id)
{
	return sys_uevent_control(CAP_SLOT_TRACE_CONTROL, UEVENT_OP_INFO, id, &info);
}

/* Whether the event in info is called name (len bytes). */
static bool named(const char *name, size_t len)
{
	/* The canonical description starts with the name and a space, if it has fields. */
	return strcspn(info.desc, " ") == len && !memcmp(info.desc, name, len);
}

/* The id of the event called name (body, len bytes), or -ENOENT. */
static long find(const struct request *req)
{
	if (!req->len || req->len > UEVENT_NAME_MAX) {
		return -EINVAL;
	}
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (!query(id) && named(req->body, req->len)) {
			return id;
		}
	}
	return -ENOENT;
}

/*
 * Whether a caller below CONTROL may make a new event (REGISTER's quota,
 * abi/traced.h): 0, -EDQUOT for a tree at its quota, -ENOSPC when only
 * CONTROL's ids are free. A description that names an existing event
 * needs no id (the kernel gives that one, or refuses other fields).
 */
static int quota_check(const struct request *req)
{
	const char *desc = req->body;
	size_t name = 0;
	uint32_t live = 0, mine = 0;

	while (name < req->len && desc[name] != ' ' && desc[name] != '\t' && desc[name] != ';') {
		name++;
	}
	uint32_t tree = tree_of(req->pid);
	/* One pass: each INFO is a system call, and a registration takes only this one. */
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (query(id)) {
			continue;
		}
		if (named(desc, name)) {
			return 0;
		}
		live++;
		mine += owner[id].generation == info.generation && owner[id].tree == tree;
	}
	if (mine >= TRACED_UEVENT_TREE_MAX) {
		return -EDQUOT;
	}
	return UEVENT_MAX - live <= TRACED_UEVENT_CONTROL_IDS ? -ENOSPC : 0;
}

int uevents_register(const struct request *req, struct reply *rep)
{
	struct cap_info ci;

	if (!req->len) {
		return -EINVAL;
	}
	int err = req->level < TRACED_LEVEL_CONTROL ? quota_check(req) : 0;
	if (err) {
		return err;
	}
	long slot = sys_uevent_register(CAP_SLOT_TRACE_CONTROL, req->body, req->len);
	if (slot < 0) {
		return (int)slot;
	}
	sys_cap_identify((int)slot, &ci);
	if (ci.size < UEVENT_MAX && !query((uint32_t)ci.size) &&
	    owner[ci.size].generation != info.generation) {
		owner[ci.size].generation = info.generation;
		owner[ci.size].pid = req->pid;
		owner[ci.size].tree = tree_of(req->pid);
	}
	rep->result = ci.size;
	rep->cap = (uint32_t)slot;
	rep->cap_rights = CAP_RIGHT_WRITE; /* the client may write; passing it on is traced's job */
	rep->cap_delete = true;
	return 0;
}

int uevents_unregister(const struct request *req, struct reply *rep)
{
	long id = find(req); /* leaves the event's INFO in info */

	(void)rep;
	if (id < 0) {
		return (int)id;
	}
	if (req->level < TRACED_LEVEL_CONTROL &&
	    (owner[id].generation != info.generation || owner[id].pid != req->pid)) {
		return -EACCES;
	}
	return (int)sys_uevent_control(CAP_SLOT_TRACE_CONTROL, UEVENT_OP_DELETE, (uint64_t)id,
				       NULL);
}

static int switch_one(const struct request *req, struct reply *rep, bool on)
{
	long id = find(req);

	if (id < 0) {
		return (int)id;
	}
	long err = sys_uevent_control(
	    CAP_SLOT_TRACE_CONTROL, on ? UEVENT_OP_ENABLE : UEVENT_OP_DISABLE, (uint64_t)id, NULL);
	if (err) {
		return (int)err;
	}
	long mask =
	    on ? sys_trace_control(CAP_SLOT_TRACE_CONTROL, TTRACE_OP_ENABLE, TTRACE_CAT(USER))
	       : (long)__atomic_load_n(&traced.area.hdr->mask, __ATOMIC_RELAXED);
	if (mask < 0) {
		return (int)mask;
	}
	rep->result = (uint64_t)mask;
	return 0;
}

int uevents_on(const struct request *req, struct reply *rep)
{
	return switch_one(req, rep, true);
}

int uevents_off(const struct request *req, struct reply *rep)
{
	return switch_one(req, rep, false);
}

int uevents_all(bool on)
{
	return (int)sys_uevent_control(CAP_SLOT_TRACE_CONTROL,
				       on ? UEVENT_OP_ENABLE_ALL : UEVENT_OP_DISABLE_ALL, 0, NULL);
}

/* Appends text to the page; false if it does not fit. */
static bool append(char *out, size_t *len, size_t max, const char *text, size_t n)
{
	if (*len + n > max) {
		return false;
	}
	memcpy(out + *len, text, n);
	*len += n;
	return true;
}

int uevents_list(const struct request *req, struct reply *rep)
{
	struct traced_strings_request r;
	char *out = (char *)rep->buf + sizeof(struct traced_dump_reply);
	/* An event's two lines: the name twice, the description, three counters. */
	char line[2 * UEVENT_NAME_MAX + UEVENT_DESC_MAX + 128];
	size_t len = 0;
	uint32_t id, count = 0;

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (r.tag || r.reserved || page_listing_check(&r.cursor, UEVENT_MAX, 0)) {
		return -EINVAL;
	}
	for (id = (uint32_t)r.cursor.next[0]; id < UEVENT_MAX; id++) {
		if (query(id)) {
			continue;
		}
		int n = format_snprintf(
		    line, sizeof(line),
		    "%u:%.*s%s\n#   holders %u, written %llu, rejected %llu: %s\n", id,
		    (int)strcspn(info.desc, " "), info.desc, info.enabled ? " # used" : "",
		    info.holders, (unsigned long long)info.written,
		    (unsigned long long)info.rejected, info.desc);
		if (!append(out, &len, TRACED_PAGE_DATA_MAX, line,
			    (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1)) {
			break;
		}
		count++;
	}
	bool done = id == UEVENT_MAX;
	if (done) {
		uint32_t active = 0, busy = 0;
		for (uint32_t i = 0; i < UEVENT_MAX; i++) {
			if (!query(i)) {
				active++;
				busy += info.enabled;
			}
		}
		int n = format_snprintf(line, sizeof(line), "Active: %u\nBusy: %u\nMax: %u\n",
					active, busy, UEVENT_MAX);
		done = append(out, &len, TRACED_PAGE_DATA_MAX, line, (size_t)n);
	}
	page_listing_at(&r.cursor, id);
	page_finish(rep, &r.cursor, done, (uint32_t)len, count);
	return 0;
}
