/*
 * tracescope MODE [NAME]: what traced lets a program do at the level init
 * gave it (abi/traced.h, WHO CALLS). Each mode prints one line,
 *   tracescope: MODE ok (N checks)
 * or each check that failed (exit 1):
 *   self NAME  run at the self level: STATUS names this process and the
 *              level; every request beyond it (ENABLE ... UNREGISTER of
 *              NAME, an event someone else registered) answers -EACCES
 *              and leaves status and ledger as they were; 300 user
 *              events registered and released one after another all
 *              succeed (the ids come back); its own held event is busy,
 *              and gone with its last hold
 *   read NAME  run with -r: it reads others' events (tests run tracegen
 *              first), and changes nothing, NAME included
 *   dump N     emits N test_tick events, spawns a child that emits N
 *              more, then dumps, page by page (DUMP) and in bulk (BULK):
 *              every event is its own or its child's, at least N of each
 *   pass       hands its traced capability to a child (tracescope
 *              passed), which calls traced through it: traced sees the
 *              child's pid and the same level, and the child cannot mint
 *              another badge from it
 *   resend N   (a ring of N entries in drop mode) follows, gets a page
 *              of its own events, then sends that request again, as
 *              libc's client does when traced died before replying, after
 *              N more events: the page comes again, none of it lost
 *   overrun N  (a ring of N entries in overwrite mode) emits N events,
 *              reads the first page of a text dump of them, emits 2N
 *              more, which overwrite the rest, and reads on: the dump
 *              counts that loss as overwritten while it read (not before
 *              it began, nor outside its filter) and its last page says so
 * Tests run it with only the test category on and nothing else tracing.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace.h"

#define CYCLES	       300 /* register and release: more than UEVENT_MAX */
#define PASSED_SLOT    (CAP_SLOT_FIRST_FREE + 4)
#define CHILD_WAIT_NS  10000000000ull
#define DUMP_PAGES_MAX 100000
#define BULK_SIZE      8192 /* small: a dump of a few pages still takes several calls */
#define RESEND_TICKS   16   /* events of the page whose reply is lost: a quarter of a small ring */

static int checks, failures;

static void expect(const char *what, long got, long want)
{
	checks++;
	if (got != want) {
		printf("tracescope: FAIL %s: got %ld (%s), want %ld (%s)\n", what, got,
		       strerror((int)-got), want, strerror((int)-want));
		failures++;
	}
}

static int done(const char *mode)
{
	if (failures) {
		printf("tracescope: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("tracescope: %s ok (%d checks)\n", mode, checks);
	return 0;
}

/* What a refused request must leave as it was: the mask, mode, tracking and every ledger. */
static void expect_unchanged(const char *what, const struct traced_status *before)
{
	struct traced_status now;

	expect("status after refusals", traced_call_status(&now), 0);
	bool same = now.mask == before->mask && now.mode == before->mode &&
		    now.tracking == before->tracking &&
		    !memcmp(now.cpu, before->cpu, sizeof(now.cpu));
	expect(what, same, 1);
}

/* Every request beyond level (SELF or READ) answers -EACCES and changes nothing. */
static void refusals(const char *other_event, bool may_read)
{
	static char page[TRACED_REPLY_MAX];
	struct traced_strings_request listing = {0};
	struct traced_status before;

	expect("status before refusals", traced_call_status(&before), 0);
	const struct {
		const char *what;
		uint32_t op;
		uint64_t arg;
		const void *body;
		size_t len;
	} refused[] = {
	    {"ENABLE", TRACED_OP_ENABLE, TTRACE_CAT(MEM), NULL, 0},
	    {"DISABLE", TRACED_OP_DISABLE, TTRACE_CAT_ALL, NULL, 0},
	    {"MODE", TRACED_OP_MODE, TTRACE_MODE_DROP, NULL, 0},
	    {"CLEAR", TRACED_OP_CLEAR, 0, NULL, 0},
	    {"MAP", TRACED_OP_MAP, 0, NULL, 0},
	    {"TRACK", TRACED_OP_TRACK, (uint64_t)sys_getpid(), NULL, 0},
	    {"UNTRACK", TRACED_OP_UNTRACK, TRACED_UNTRACK_ALL, NULL, 0},
	    {"EVENT_ON", TRACED_OP_EVENT_ON, 0, other_event, strlen(other_event)},
	    {"EVENT_OFF", TRACED_OP_EVENT_OFF, 0, other_event, strlen(other_event)},
	    {"UNREGISTER of another's event", TRACED_OP_UNREGISTER, 0, other_event,
	     strlen(other_event)},
	    {"STRINGS", TRACED_OP_STRINGS, 0, &listing, sizeof(listing)},
	    {"EVENTS", TRACED_OP_EVENTS, 0, &listing, sizeof(listing)},
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		bool reading =
		    refused[i].op == TRACED_OP_STRINGS || refused[i].op == TRACED_OP_EVENTS;
		if (reading && may_read) {
			continue;
		}
		expect(refused[i].what,
		       traced_request(refused[i].op, refused[i].arg, refused[i].body,
				      refused[i].len, page, sizeof(page), NULL),
		       -EACCES);
	}
	expect_unchanged("status and ledger as before the refusals", &before);
}

/* Registering and releasing more events than there are ids: each id comes back. */
static void register_cycles(void)
{
	struct trace_uevent ev;
	char desc[64];
	int ok = 0;

	for (int i = 0; i < CYCLES; i++) {
		snprintf(desc, sizeof(desc), "tracescope_%d u32 n", i);
		if (!trace_uevent_register(desc, &ev) && !trace_uevent_release(&ev)) {
			ok++;
		}
	}
	expect("register and release cycles that succeeded", ok, CYCLES);
}

/* Its own event: busy while it holds it, and released with its last hold. */
static void own_event(void)
{
	struct trace_uevent ev;
	const char name[] = "tracescope_own";

	expect("register its own event", trace_uevent_register("tracescope_own u32 n", &ev), 0);
	expect("unregister it while holding it", traced_call_unregister(name), -EBUSY);
	expect("release it", trace_uevent_release(&ev), 0);
	expect("unregister it once released", traced_call_unregister(name), -ENOENT);
}

static int mode_self(const char *other_event)
{
	struct traced_status st;

	expect("status", traced_call_status(&st), 0);
	expect("the level traced sees", st.level, TRACED_LEVEL_SELF);
	expect("the pid traced sees", st.pid, sys_getpid());
	refusals(other_event, false);
	register_cycles();
	own_event();
	return done("self");
}

/* Starts `tracescope ARGS...` with the console and name service, and cap at slot to if >= 0. */
static long spawn_self(const char *args, size_t len, int cap, uint32_t to)
{
	struct spawn_cap caps[3] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CAP_RIGHTS_ALL},
	    {.src = CAP_SLOT_NAMESERVER, .dst = CAP_SLOT_NAMESERVER, .rights = CAP_RIGHTS_ALL},
	    {.src = (uint32_t)cap, .dst = to, .rights = CAP_RIGHTS_ALL},
	};
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t) "tracescope",
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len,
	    .ncaps = cap >= 0 ? 3 : 2,
	    .caps = (uint64_t)(uintptr_t)caps,
	};
	return sys_spawn(&sa);
}

/* Waits for the child in slot; returns its exit status. */
static int64_t reap(long slot)
{
	int64_t status = -1;

	expect("the child ends", sys_wait((int)slot, &status, CHILD_WAIT_NS), 0);
	sys_cap_delete((int)slot);
	return status;
}

/*
 * Events of a whole binary dump by pid: own (this process), of pid other,
 * of anyone else; through DUMP, or BULK when bulk.
 */
struct tally {
	uint32_t other_pid;
	uint64_t own, other, strangers;
};

static void tally_dump(struct tally *t, bool bulk)
{
	static struct traced_pager pager;
	struct traced_filter all = {0};
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0, self = (uint32_t)sys_getpid();

	if (bulk) {
		expect("a bulk dump's frame", traced_pager_bulk(&pager, &all, BULK_SIZE), 0);
	} else {
		traced_pager_dump(&pager, TRACED_OP_DUMP, &all, TRACED_FORMAT_BINARY);
	}
	for (int page = 0; !(flags & TRACED_DUMP_DONE) && page < DUMP_PAGES_MAX; page++) {
		if (traced_pager_next(&pager, &data, &len, &flags)) {
			break;
		}
		const union ttrace_slot *s = (const union ttrace_slot *)data;
		for (size_t i = 0; i < len / sizeof(*s); i++) {
			if (s[i].e.kind == TRACED_KIND_LOST || s[i].e.ts & TTRACE_TS_CONT) {
				continue;
			}
			t->own += s[i].e.pid == self;
			t->other += s[i].e.pid == t->other_pid;
			t->strangers += s[i].e.pid != self && s[i].e.pid != t->other_pid;
		}
	}
	traced_pager_close(&pager);
}

static int mode_read(const char *other_event)
{
	struct traced_status st;
	struct tally t = {0};

	expect("status", traced_call_status(&st), 0);
	expect("the level traced sees", st.level, TRACED_LEVEL_READ);
	tally_dump(&t, false);
	expect("it reads other processes' events", t.strangers > 0, 1);
	refusals(other_event, true);
	return done("read");
}

/* Emits n test_tick events of its own. */
static void emit(uint64_t n)
{
	expect("trace_test", sys_trace_test(n), (long)n);
}

static int mode_dump(uint64_t n)
{
	char args[32];
	struct tally t = {0}, b;

	emit(n);
	int alen =
	    snprintf(args, sizeof(args), "tracescope%cchild%c%llu", 0, 0, (unsigned long long)n);
	long slot = spawn_self(args, (size_t)alen + 1, -1, 0);
	expect("spawn the child", slot >= 0, 1);
	if (slot < 0) {
		return done("dump");
	}
	struct cap_info info;
	sys_cap_identify((int)slot, &info);
	t.other_pid = (uint32_t)info.size;
	expect("the child's status", reap(slot), 0);
	b = t;
	tally_dump(&t, false);
	tally_dump(&b, true);
	expect("events of other processes in its dump", (long)t.strangers, 0);
	expect("the bulk dump holds the page dump's events",
	       b.own == t.own && b.other == t.other && b.strangers == t.strangers, 1);
	expect("its own events are there", t.own >= n, 1);
	expect("its child's events are there", t.other >= n, 1);
	printf("tracescope: dump saw %llu own, %llu of child %u, %llu of others\n",
	       (unsigned long long)t.own, (unsigned long long)t.other, t.other_pid,
	       (unsigned long long)t.strangers);
	printf("tracescope: bulk dump saw %llu own, %llu of child %u, %llu of others\n",
	       (unsigned long long)b.own, (unsigned long long)b.other, b.other_pid,
	       (unsigned long long)b.strangers);
	return done("dump");
}

/*
 * The next page of a binary FOLLOW: the seq of each of its test_tick
 * events into seqs (at most max; returns how many), the entries its loss
 * markers count into *lost.
 */
static size_t follow_page(struct traced_pager *p, uint64_t *seqs, size_t max, uint64_t *lost)
{
	const uint8_t *data;
	size_t len, n = 0;
	uint32_t flags;

	*lost = 0;
	expect("a FOLLOW page", traced_pager_next(p, &data, &len, &flags), 0);
	const union ttrace_slot *s = (const union ttrace_slot *)data;
	for (size_t i = 0; i < len / sizeof(*s); i++) {
		if (s[i].e.kind == TRACED_KIND_LOST) {
			*lost += s[i].e.data[0];
		} else if (!(s[i].e.ts & TTRACE_TS_CONT) && s[i].e.kind == TTRACE_KIND_test_tick &&
			   n < max) {
			seqs[n++] = s[i].e.data[0];
		}
	}
	return n;
}

static int mode_resend(uint64_t entries)
{
	static struct traced_pager pager;
	struct traced_filter all = {0};
	uint64_t seqs[RESEND_TICKS + 1], lost;
	size_t n;

	expect("run on cpu 0", sys_thread_set_cpu(0), 0);
	traced_pager_dump(&pager, TRACED_OP_FOLLOW, &all, TRACED_FORMAT_BINARY);
	follow_page(&pager, seqs, RESEND_TICKS, &lost); /* starts at the heads */
	emit(RESEND_TICKS);
	const struct traced_cursor acked = pager.req.dump.cursor;
	n = follow_page(&pager, seqs, RESEND_TICKS, &lost);
	expect("events of the page whose reply is lost", (long)n, RESEND_TICKS);
	/* That reply never came: the same request goes again, after a ring's worth of events. */
	pager.req.dump.cursor = acked;
	expect("a ring's worth of events", sys_trace_test(entries) >= 0, 1);
	n = follow_page(&pager, seqs, RESEND_TICKS + 1, &lost);
	printf("tracescope: the request sent again got %zu events, %llu lost\n", n,
	       (unsigned long long)lost);
	expect("entries lost", (long)lost, 0);
	expect("its events and the next", (long)n, RESEND_TICKS + 1);
	for (size_t i = 0; i < n; i++) {
		/* the page's events, then the first of the ring's worth after them */
		expect("in order", (long)seqs[i], i < RESEND_TICKS ? (long)i : 0);
	}
	return done("resend");
}

static int mode_overrun(uint64_t entries)
{
	static struct traced_pager pager;
	const struct traced_filter ticks = {
	    .flags = TRACED_F_KINDS,
	    .kinds = {[TTRACE_KIND_test_tick / 64] = 1ull << (TTRACE_KIND_test_tick % 64)}};
	const uint8_t *data = NULL;
	size_t len = 0;
	uint32_t flags = 0, pages = 0;

	expect("run on cpu 0", sys_thread_set_cpu(0), 0);
	emit(entries);
	traced_pager_dump(&pager, TRACED_OP_DUMP, &ticks, TRACED_FORMAT_TEXT);
	while (!(flags & TRACED_DUMP_DONE) && pages < DUMP_PAGES_MAX) {
		expect("a DUMP page", traced_pager_next(&pager, &data, &len, &flags), 0);
		if (!pages++) {
			emit(2 * entries); /* everything the first page left unread goes */
		}
	}
	const struct traced_cursor *c = &pager.reply.head.cursor;
	expect("more than one page", pages > 1, 1);
	expect("entries lost while the dump read", c->lost > 0 && c->lost < entries, 1);
	expect("every one of them found", (long)(c->events + c->lost), (long)entries);
	expect("lost outside the filter", (long)c->outside, 0);
	expect("lost before the dump began", (long)c->early, 0);
	printf("tracescope: the dump's last page:\n%.*s", (int)len, (const char *)data);
	return done("overrun");
}

static int mode_pass(void)
{
	long traced_slot = lookup(TRACED_NAME);
	char args[] = "tracescope\0passed";

	expect("find traced", traced_slot >= 0, 1);
	if (traced_slot < 0) {
		return done("pass");
	}
	long slot = spawn_self(args, sizeof(args), (int)traced_slot, PASSED_SLOT);
	expect("spawn the child with its traced capability", slot >= 0, 1);
	if (slot >= 0) {
		expect("the child's checks", reap(slot), 0);
	}
	return done("pass");
}

/* The child of pass: traced through the capability it was given. */
static int mode_passed(void)
{
	struct traced_status st;

	traced_use(PASSED_SLOT);
	expect("status through the passed capability", traced_call_status(&st), 0);
	expect("traced sees the child's own pid", st.pid, sys_getpid());
	expect("the level is the capability's", st.level, TRACED_LEVEL_SELF);
	expect("minting another badge from it",
	       sys_endpoint_mint(PASSED_SLOT, TRACED_LEVEL_CONTROL, CAP_RIGHT_WRITE), -EINVAL);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "self")) {
		return mode_self(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "read")) {
		return mode_read(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "dump")) {
		return mode_dump(strtoull(argv[2], NULL, 10));
	}
	if (argc == 3 && !strcmp(argv[1], "child")) {
		emit(strtoull(argv[2], NULL, 10));
		return failures ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "resend")) {
		return mode_resend(strtoull(argv[2], NULL, 10));
	}
	if (argc == 3 && !strcmp(argv[1], "overrun")) {
		return mode_overrun(strtoull(argv[2], NULL, 10));
	}
	if (argc == 2 && !strcmp(argv[1], "pass")) {
		return mode_pass();
	}
	if (argc == 2 && !strcmp(argv[1], "passed")) {
		return mode_passed();
	}
	printf(
	    "tracescope: usage: tracescope self EVENT | read EVENT | dump N | resend N | overrun N "
	    "| pass\n");
	return 2;
}
