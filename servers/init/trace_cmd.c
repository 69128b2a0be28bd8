/*
 * trace_cmd: the shell's `trace` verbs. Each is one or a few requests to
 * traced (abi/traced.h, through libc's trace_client) and prints a line
 * confirming what happened; wrong input gets one line saying what was
 * wrong and what is accepted. Dumps and follows print traced's text as
 * it comes and stop at Ctrl-C.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/trace_names.h"
#include "common/uevent.h"
#include "init.h"

#define WHY_MAX	       1400
#define FOLLOW_POLL_NS 100000000ull
#define CATEGORIES_MAX 128
#define NS_PER_MS      1000000ull
#define MS_PER_S       1000ull

struct trace_verb {
	const char *name;
	const char *usage;
	void (*run)(int argc, char **argv);
};

/* Says why a request failed; true if it did. */
static bool failed(long err)
{
	if (!err) {
		return false;
	}
	if (err == -ETIMEDOUT || err == -EPIPE || err == -ENOENT) {
		printf("trace: traced is not running\n");
	} else {
		printf("trace: traced refused: %s\n", strerror((int)-err));
	}
	return true;
}

static void print_mask(const char *what, uint64_t mask)
{
	char names[CATEGORIES_MAX];

	ttrace_category_format(mask, names, sizeof(names));
	printf("trace: %s; tracing now: %s\n", what, names);
}

#define EVENT_PREFIX "user:"

/* on/off for one user event: `trace on user:NAME`. */
static bool switch_event(const char *name, bool on)
{
	uint64_t now;
	long err = traced_request(on ? TRACED_OP_EVENT_ON : TRACED_OP_EVENT_OFF, 0, name,
				  strlen(name), NULL, 0, &now);

	if (err == -ENOENT || err == -EINVAL) {
		printf("trace: no user event '%s' (see trace events)\n", name);
		return false;
	}
	if (failed(err)) {
		return false;
	}
	char what[UEVENT_NAME_MAX + 32];
	snprintf(what, sizeof(what), "%s user event %s", on ? "enabled" : "disabled", name);
	print_mask(what, now);
	return true;
}

/*
 * on/off: the categories and user events (user:NAME) of argv[1], comma
 * separated ("all" if absent and allowed).
 */
static void switch_categories(int argc, char **argv, bool on)
{
	char why[WHY_MAX];
	char cats[LINE_MAX] = "";
	uint64_t mask, now;

	if (argc > 2 || (on && argc < 2)) {
		printf("trace: usage: trace %s\n",
		       on ? "on CATS (e.g. mem,ipc or all or user:NAME)" : "off [CATS]");
		return;
	}
	/* User events by name go one by one; the categories go in one request. */
	char *save = NULL;
	int words = 0;
	for (char *w = argc == 2 ? strtok_r(argv[1], ",", &save) : NULL; w;
	     w = strtok_r(NULL, ",", &save), words++) {
		if (!strncmp(w, EVENT_PREFIX, strlen(EVENT_PREFIX))) {
			if (!switch_event(w + strlen(EVENT_PREFIX), on)) {
				return;
			}
		} else {
			strcat(strcat(cats, *cats ? "," : ""), w);
		}
	}
	if (argc == 2 && !words) {
		printf("trace: no category given (e.g. mem,ipc or all)\n");
		return;
	}
	if (argc == 2 && !*cats) {
		return; /* only user events, each confirmed */
	}
	if (traced_categories_parse(argc == 2 ? cats : "all", &mask, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return;
	}
	if (failed(traced_request(on ? TRACED_OP_ENABLE : TRACED_OP_DISABLE, mask, NULL, 0, NULL, 0,
				  &now))) {
		return;
	}
	char what[CATEGORIES_MAX + 16];
	char names[CATEGORIES_MAX];
	if (mask == TTRACE_CAT_ALL) {
		snprintf(names, sizeof(names), "all");
	} else {
		ttrace_category_format(mask, names, sizeof(names));
	}
	snprintf(what, sizeof(what), "%s %s", on ? "enabled" : "disabled", names);
	print_mask(what, now);
}

static void verb_on(int argc, char **argv)
{
	switch_categories(argc, argv, true);
}

static void verb_off(int argc, char **argv)
{
	switch_categories(argc, argv, false);
}

static void verb_status(int argc, char **argv)
{
	struct traced_status st;
	char names[CATEGORIES_MAX];

	(void)argv;
	if (argc != 1) {
		printf("trace: usage: trace status\n");
		return;
	}
	if (failed(traced_status(&st))) {
		return;
	}
	ttrace_category_format(st.mask, names, sizeof(names));
	printf("trace: mask %s, mode %s, %u cpus x %u entries, aux %llu KiB (%llu evicted), "
	       "header %u.%u, protocol %u, up %llu.%03llu s\n",
	       names, st.mode == TTRACE_MODE_DROP ? "drop" : "overwrite", st.num_cpus,
	       st.ring_entries, (unsigned long long)st.aux_ring_size / 1024,
	       (unsigned long long)st.aux_evicted, st.version_major, st.version_minor,
	       (unsigned)TRACED_PROTOCOL, (unsigned long long)(st.uptime_ns / NS_PER_MS / MS_PER_S),
	       (unsigned long long)(st.uptime_ns / NS_PER_MS % MS_PER_S));
	for (uint32_t i = 0; i < st.num_cpus && i < TTRACE_MAX_CPUS; i++) {
		const struct traced_cpu_status *c = &st.cpu[i];
		printf(
		    "cpu %u: emitted %llu stored %llu overwritten %llu dropped %llu cleared %llu\n",
		    i, (unsigned long long)c->emitted, (unsigned long long)c->stored,
		    (unsigned long long)c->overwritten, (unsigned long long)c->dropped,
		    (unsigned long long)c->cleared);
	}
}

static void verb_clear(int argc, char **argv)
{
	uint64_t now;

	(void)argv;
	if (argc != 1) {
		printf("trace: usage: trace clear\n");
		return;
	}
	if (!failed(traced_request(TRACED_OP_CLEAR, 0, NULL, 0, NULL, 0, &now))) {
		print_mask("cleared every ring", now);
	}
}

static void verb_mode(int argc, char **argv)
{
	uint64_t mode;

	if (argc != 2 || (strcmp(argv[1], "overwrite") && strcmp(argv[1], "drop"))) {
		printf("trace: usage: trace mode overwrite|drop\n");
		return;
	}
	mode = strcmp(argv[1], "drop") ? TTRACE_MODE_OVERWRITE : TTRACE_MODE_DROP;
	if (!failed(traced_request(TRACED_OP_MODE, mode, NULL, 0, NULL, 0, NULL))) {
		printf("trace: mode %s\n", argv[1]);
	}
}

/* A Ctrl-C typed since the last look (waiting up to timeout_ns for one). */
static bool interrupted(uint64_t timeout_ns)
{
	char c;

	return sys_console_read(CAP_SLOT_CONSOLE, &c, 1, timeout_ns) == 1 && c == KEY_CTRL_C;
}

/* The filter words after the verb; false (having said why) if they are wrong. */
static bool filter_words(int argc, char **argv, struct traced_filter *f)
{
	struct traced_status st;
	char why[WHY_MAX];

	if (failed(traced_status(&st))) {
		return false;
	}
	if (traced_filter_parse(argc - 1, argv + 1, st.num_cpus, f, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return false;
	}
	return true;
}

static void verb_dump(int argc, char **argv)
{
	static struct traced_pager pager;
	struct traced_filter f;
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;

	if (!filter_words(argc, argv, &f)) {
		return;
	}
	traced_pager_dump(&pager, TRACED_OP_DUMP, &f, TRACED_FORMAT_TEXT);
	while (!(flags & TRACED_DUMP_DONE)) {
		if (failed(traced_pager_next(&pager, &data, &len, &flags))) {
			return;
		}
		printf("%.*s", (int)len, (const char *)data);
		if (interrupted(0)) {
			printf("^C\n# dump stopped\n");
			return;
		}
	}
}

static void verb_follow(int argc, char **argv)
{
	static struct traced_pager pager;
	struct traced_filter f;
	const uint8_t *data;
	size_t len;
	uint32_t flags;

	if (!filter_words(argc, argv, &f)) {
		return;
	}
	if (f.flags & TRACED_F_LAST) {
		printf("trace: follow takes no last= (it shows what comes next)\n");
		return;
	}
	traced_pager_dump(&pager, TRACED_OP_FOLLOW, &f, TRACED_FORMAT_TEXT);
	printf("# following; Ctrl-C stops\n");
	for (;;) {
		if (failed(traced_pager_next(&pager, &data, &len, &flags))) {
			return;
		}
		printf("%.*s", (int)len, (const char *)data);
		fflush(stdout);
		if (flags & TRACED_DUMP_DONE || interrupted(len ? 0 : FOLLOW_POLL_NS)) {
			break;
		}
	}
	const struct traced_cursor *c = &pager.reply.head.cursor;
	printf("%s# stopped following: %llu events, %llu lost\n",
	       flags & TRACED_DUMP_DONE ? "" : "^C\n", (unsigned long long)c->events,
	       (unsigned long long)c->lost);
}

/* Prints a paged text listing (STRINGS, EVENTS) to its end; returns its entries. */
static uint64_t print_listing(struct traced_pager *pager)
{
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;
	uint64_t count = 0;

	while (!(flags & TRACED_DUMP_DONE)) {
		if (failed(traced_pager_next(pager, &data, &len, &flags))) {
			break;
		}
		printf("%.*s", (int)len, (const char *)data);
		count += pager->reply.head.events;
		if (interrupted(0)) {
			printf("^C\n");
			break;
		}
	}
	return count;
}

static void verb_events(int argc, char **argv)
{
	static struct traced_pager pager;

	(void)argv;
	if (argc != 1) {
		printf("trace: usage: trace events\n");
		return;
	}
	traced_pager_events(&pager);
	print_listing(&pager);
}

/* The user events the shell registered: it holds them until `trace unregister`. */
static struct trace_uevent held[UEVENT_MAX];
static char held_names[UEVENT_MAX][UEVENT_NAME_MAX + 1];

static void verb_register(int argc, char **argv)
{
	struct trace_uevent ev;
	char desc[LINE_MAX] = "";

	if (argc < 2) {
		printf("trace: usage: trace register 'NAME [TYPE FIELD;...]'\n");
		return;
	}
	/* The words again, so that the quotes may be left out. */
	for (int i = 1; i < argc; i++) {
		strcat(strcat(desc, i > 1 ? " " : ""), argv[i]);
	}
	/* The parser the kernel runs, run here first for its reason in words. */
	static struct uevent_def def;
	char why[WHY_MAX];
	if (uevent_parse(desc, strlen(desc), &def, why, sizeof(why))) {
		printf("trace: cannot register '%s': %s\n", desc, why);
		return;
	}
	long err = trace_uevent_register(desc, &ev);
	if (err && err != -ETIMEDOUT && err != -EPIPE && err != -ENOENT) {
		printf("trace: cannot register '%s': %s\n", desc, strerror((int)-err));
		return;
	}
	if (failed(err)) {
		return;
	}
	if (held[ev.id].status) {
		trace_uevent_release(&held[ev.id]); /* the same event again: one hold is enough */
	}
	held[ev.id] = ev;
	snprintf(held_names[ev.id], sizeof(held_names[ev.id]), "%.*s", (int)strcspn(desc, " \t"),
		 desc);
	printf("trace: registered user event %u '%s' (write index %ld)\n", ev.id, held_names[ev.id],
	       ev.index);
}

static void verb_unregister(int argc, char **argv)
{
	if (argc != 2) {
		printf("trace: usage: trace unregister NAME\n");
		return;
	}
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (held[id].status && !strcmp(held_names[id], argv[1])) {
			trace_uevent_release(&held[id]);
			held[id].status = NULL;
		}
	}
	long err = traced_request(TRACED_OP_UNREGISTER, 0, argv[1], strlen(argv[1]), NULL, 0, NULL);
	if (err == -ENOENT || err == -EINVAL) {
		printf("trace: no user event '%s' (see trace events)\n", argv[1]);
	} else if (err == -EBUSY) {
		/* The shell's own hold is gone all the same: unregistering is letting go. */
		printf("trace: user event '%s' is busy: a program holds it or tracing has it on\n",
		       argv[1]);
	} else if (!failed(err)) {
		printf("trace: unregistered user event '%s'\n", argv[1]);
	}
}

static const char *const string_tags[] = {
    [TTRACE_AUX_SYSCALL] = "syscalls",	[TTRACE_AUX_KIND] = "kinds",
    [TTRACE_AUX_PROC] = "procs",	[TTRACE_AUX_THREAD] = "threads",
    [TTRACE_AUX_USER_EVENT] = "events", [TTRACE_AUX_TEXT] = "text",
};

#define NUM_TAGS (sizeof(string_tags) / sizeof(string_tags[0]))

static void verb_strings(int argc, char **argv)
{
	static struct traced_pager pager;
	uint32_t tag = 0;

	if (argc > 2) {
		printf("trace: usage: trace strings [syscalls|kinds|procs|threads|events|text]\n");
		return;
	}
	while (argc == 2 && ++tag < NUM_TAGS && strcmp(argv[1], string_tags[tag])) {
	}
	if (tag == NUM_TAGS) {
		printf("trace: unknown strings '%s' (known: syscalls kinds procs threads events "
		       "text)\n",
		       argv[1]);
		return;
	}
	traced_pager_strings(&pager, tag);
	printf("# %llu strings\n", (unsigned long long)print_listing(&pager));
}

static const struct trace_verb verbs[] = {
    {"on", "on CATS: start tracing categories (mem,sched,... or all)", verb_on},
    {"off", "off [CATS]: stop tracing them (all if none given)", verb_off},
    {"status", "status: mask, mode, per-CPU counts", verb_status},
    {"dump", "dump [cpu=N pid=N tid=N kind=K,... cat=C,... last=N since=S]", verb_dump},
    {"clear", "clear: discard every ring's events", verb_clear},
    {"mode", "mode overwrite|drop: when a ring is full", verb_mode},
    {"follow", "follow [FILTERS]: print events as they come (Ctrl-C stops)", verb_follow},
    {"strings", "strings [syscalls|kinds|procs|threads|events|text]", verb_strings},
    {"events", "events: the user events, as Linux's user_events_status", verb_events},
    {"register", "register 'NAME [TYPE FIELD;...]': define a user event", verb_register},
    {"unregister", "unregister NAME: delete a user event nobody holds", verb_unregister},
};

#define NUM_VERBS (sizeof(verbs) / sizeof(verbs[0]))

void cmd_trace(int argc, char **argv)
{
	const struct trace_verb *verb = NULL;

	for (size_t i = 0; argc > 1 && i < NUM_VERBS; i++) {
		if (!strcmp(argv[1], verbs[i].name)) {
			verb = &verbs[i];
		}
	}
	if (!verb) {
		if (argc > 1) {
			printf("trace: unknown command '%s' (known: on off status dump clear mode "
			       "follow strings events register unregister)\n",
			       argv[1]);
			return;
		}
		for (size_t i = 0; i < NUM_VERBS; i++) {
			printf("  trace %s\n", verbs[i].usage);
		}
		return;
	}
	int slot = services_endpoint(TRACED_NAME);
	if (slot < 0) {
		printf("trace: traced is not running\n");
		return;
	}
	traced_use(slot);
	verb->run(argc - 1, argv + 1);
}
