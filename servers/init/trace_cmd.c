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
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "common/trace_names.h"
#include "common/uevent_parse.h"
#include "init.h"
#include "trace_cmd.h"

#define FOLLOW_POLL_NS 100000000ull
#define CATEGORIES_MAX 128
#define LIST_MAX       160 /* a list of verbs, keys or sets, in one line */

/* The verb's usage error: "trace: usage: trace mode overwrite|drop". */
static void usage(const struct trace_verb *verb)
{
	printf("trace: usage: trace %s%s%s\n", verb->name, *verb->args ? " " : "", verb->args);
}

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
static void switch_categories(const struct trace_verb *verb, int argc, char **argv, bool on)
{
	char why[WHY_MAX];
	char cats[LINE_MAX] = "";
	uint64_t mask, now;

	if (argc > 2 || (on && argc < 2)) {
		usage(verb);
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

static void verb_on(const struct trace_verb *verb, int argc, char **argv)
{
	switch_categories(verb, argc, argv, true);
}

static void verb_off(const struct trace_verb *verb, int argc, char **argv)
{
	switch_categories(verb, argc, argv, false);
}

/* "tracking: off", or "tracking: pids 7 9" (the live tracked processes). */
static void print_tracking(const struct traced_status *st)
{
	if (!st->tracking) {
		printf("tracking: off\n");
		return;
	}
	printf("tracking: pids");
	for (uint32_t i = 0; i < st->ntracked && i < TRACED_TRACKED_MAX; i++) {
		printf(" %u", st->tracked[i]);
	}
	printf("%s\n", !st->ntracked			   ? " none alive"
		       : st->ntracked > TRACED_TRACKED_MAX ? " ..."
							   : "");
}

static void verb_status(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_status st;
	char names[CATEGORIES_MAX];
	char up[UPTIME_WORDS_MAX];

	(void)argv;
	if (argc != 1) {
		usage(verb);
		return;
	}
	if (failed(traced_status(&st))) {
		return;
	}
	ttrace_category_format(st.mask, names, sizeof(names));
	printf("trace: mask %s, mode %s, %u cpus x %u entries, aux %llu KiB (%llu evicted), "
	       "header %u.%u, protocol %u, %s\n",
	       names, st.mode == TTRACE_MODE_DROP ? "drop" : "overwrite", st.num_cpus,
	       st.ring_entries, (unsigned long long)st.aux_ring_size / 1024,
	       (unsigned long long)st.aux_evicted, st.version_major, st.version_minor,
	       (unsigned)TRACED_PROTOCOL, uptime_words(st.uptime_ns, up, sizeof(up)));
	print_tracking(&st);
	ttrace_category_format(st.echo, names, sizeof(names));
	printf("echo: %s\n", names);
	trace_prof_status(&st);
	trace_record_status();
	for (uint32_t i = 0; i < st.num_cpus && i < TTRACE_MAX_CPUS; i++) {
		const struct traced_cpu_status *c = &st.cpu[i];
		printf(
		    "cpu %u: emitted %llu stored %llu overwritten %llu dropped %llu cleared %llu\n",
		    i, (unsigned long long)c->emitted, (unsigned long long)c->stored,
		    (unsigned long long)c->overwritten, (unsigned long long)c->dropped,
		    (unsigned long long)c->cleared);
	}
}

static void verb_clear(const struct trace_verb *verb, int argc, char **argv)
{
	uint64_t now;

	(void)argv;
	if (argc != 1) {
		usage(verb);
		return;
	}
	long err = traced_request(TRACED_OP_CLEAR, 0, NULL, 0, NULL, 0, &now);
	if (err == -EBUSY) {
		printf("trace: a recording is running (trace record stop ends it); a clear would "
		       "take events it counts\n");
	} else if (!failed(err)) {
		print_mask("cleared every ring", now);
	}
}

static void verb_mode(const struct trace_verb *verb, int argc, char **argv)
{
	uint64_t mode;

	if (argc != 2 || (strcmp(argv[1], "overwrite") && strcmp(argv[1], "drop"))) {
		usage(verb);
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
	char why[WHY_MAX];
	long ncpus = traced_num_cpus();

	if (ncpus < 0 && failed(ncpus)) {
		return false;
	}
	if (traced_filter_parse(argc - 1, argv + 1, (uint32_t)ncpus, f, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return false;
	}
	return true;
}

void trace_print_dump(const struct traced_filter *f)
{
	static struct traced_pager pager;
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;

	trace_dump_announce(f);
	traced_pager_dump(&pager, TRACED_OP_DUMP, f, TRACED_FORMAT_TEXT);
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

static void verb_dump(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_filter f;

	(void)verb;
	if (filter_words(argc, argv, &f)) {
		trace_print_dump(&f);
	}
}

static void verb_follow(const struct trace_verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;
	struct traced_filter f;
	const uint8_t *data;
	size_t len;
	uint32_t flags;
	bool ending = false;

	(void)verb;
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
		if (flags & TRACED_DUMP_DONE || interrupted(len ? 0 : FOLLOW_POLL_NS) ||
		    trace_follow_ended(&f, len, &ending)) {
			break;
		}
	}
	const struct traced_cursor *c = &pager.reply.head.cursor;
	printf("%s# stopped following: %llu events, %llu lost\n",
	       flags & TRACED_DUMP_DONE || ending ? "" : "^C\n", (unsigned long long)c->events,
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

static void verb_events(const struct trace_verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;

	(void)argv;
	if (argc != 1) {
		usage(verb);
		return;
	}
	traced_pager_events(&pager);
	print_listing(&pager);
}

/* The user events the shell registered: it holds them until `trace unregister`. */
static struct trace_uevent held[UEVENT_MAX];
static char held_names[UEVENT_MAX][UEVENT_NAME_MAX + 1];

static void verb_register(const struct trace_verb *verb, int argc, char **argv)
{
	struct trace_uevent ev;
	char desc[LINE_MAX] = "";

	if (argc < 2) {
		usage(verb);
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
		printf("trace: cannot register '%s': %s\n", desc, trace_uevent_why(err));
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

static void verb_unregister(const struct trace_verb *verb, int argc, char **argv)
{
	if (argc != 2) {
		usage(verb);
		return;
	}
	bool let_go = false;
	for (uint32_t id = 0; id < UEVENT_MAX; id++) {
		if (held[id].status && !strcmp(held_names[id], argv[1])) {
			trace_uevent_release(&held[id]);
			held[id].status = NULL;
			let_go = true;
		}
	}
	long err = traced_request(TRACED_OP_UNREGISTER, 0, argv[1], strlen(argv[1]), NULL, 0, NULL);
	if ((err == -ENOENT || err == -EINVAL) && !let_go) {
		printf("trace: no user event '%s' (see trace events)\n", argv[1]);
	} else if (err == -EBUSY) {
		/* The shell's own hold is gone all the same: unregistering is letting go. */
		printf("trace: user event '%s' is busy: a program holds it\n", argv[1]);
	} else if (err == -ENOENT || !failed(err)) {
		/* -ENOENT after the shell let go: the kernel released it with its last hold. */
		printf("trace: unregistered user event '%s'\n", argv[1]);
	}
}

/* echo on|off [CATS]: the kernel's console echo of those categories (all if none). */
static void verb_echo(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_status st;
	char why[WHY_MAX], names[CATEGORIES_MAX];
	uint64_t cats = TTRACE_CAT_ALL;
	bool on = argc >= 2 && !strcmp(argv[1], "on");

	if (argc < 2 || argc > 3 || (!on && strcmp(argv[1], "off"))) {
		usage(verb);
		return;
	}
	if (argc == 3 && traced_categories_parse(argv[2], &cats, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return;
	}
	if (failed(traced_status(&st))) {
		return;
	}
	uint64_t echo = on ? st.echo | cats : st.echo & ~cats;
	if (failed(traced_request(TRACED_OP_ECHO, echo, NULL, 0, NULL, 0, NULL))) {
		return;
	}
	ttrace_category_format(echo, names, sizeof(names));
	printf("trace: echo on the console: %s", names);
	ttrace_category_format(echo & ~st.mask, names, sizeof(names));
	printf("%s%s%s\n", echo & ~st.mask ? " (not traced now: trace on " : "",
	       echo & ~st.mask ? names : "", echo & ~st.mask ? ")" : "");
}

/* A pid word: a number above 0 that fits 32 bits. */
static bool pid_word(const char *w, uint32_t *pid)
{
	char *end;
	unsigned long v = strtoul(w, &end, 10);

	if (*w < '0' || *w > '9' || *end || !v || v > UINT32_MAX) {
		printf("trace: '%s' is not a pid\n", w);
		return false;
	}
	*pid = (uint32_t)v;
	return true;
}

/* TRACK or UNTRACK of each pid word; says what happened to each. */
static void track_pids(int argc, char **argv, bool on)
{
	for (int i = 1; i < argc; i++) {
		uint32_t pid;
		if (!pid_word(argv[i], &pid)) {
			return;
		}
		long err = traced_request(on ? TRACED_OP_TRACK : TRACED_OP_UNTRACK, pid, NULL, 0,
					  NULL, 0, NULL);
		if (err == -ENOENT) {
			printf("trace: no process %u\n", pid);
			return;
		}
		if (failed(err)) {
			return;
		}
		printf("trace: %s pid %u\n", on ? "tracking" : "no longer tracking", pid);
	}
}

static void verb_track(const struct trace_verb *verb, int argc, char **argv)
{
	if (argc < 2) {
		usage(verb);
		return;
	}
	track_pids(argc, argv, true);
}

static void verb_untrack(const struct trace_verb *verb, int argc, char **argv)
{
	if (argc < 2) {
		usage(verb);
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "all")) {
		if (!failed(traced_request(TRACED_OP_UNTRACK, TRACED_UNTRACK_ALL, NULL, 0, NULL, 0,
					   NULL))) {
			printf("trace: tracking off: every process is traced\n");
		}
		return;
	}
	track_pids(argc, argv, false);
}

/* PID tracking as st had it: the processes it lists (those still alive), or none. */
static void restore_tracking(const struct traced_status *st)
{
	uint32_t self = (uint32_t)sys_getpid();

	traced_request(TRACED_OP_UNTRACK, TRACED_UNTRACK_ALL, NULL, 0, NULL, 0, NULL);
	if (!st->tracking) {
		return;
	}
	/* Tracking on, even if no process it tracked is left: init in and out again. */
	bool self_tracked = false;
	traced_request(TRACED_OP_TRACK, self, NULL, 0, NULL, 0, NULL);
	for (uint32_t i = 0; i < st->ntracked && i < TRACED_TRACKED_MAX; i++) {
		traced_request(TRACED_OP_TRACK, st->tracked[i], NULL, 0, NULL, 0, NULL);
		self_tracked |= st->tracked[i] == self;
	}
	if (!self_tracked) {
		traced_request(TRACED_OP_UNTRACK, self, NULL, 0, NULL, 0, NULL);
	}
}

/*
 * trace run [CATS] PROG [ARGS]: PROG alone is traced, from its first
 * instruction: tracking goes to init just while it spawns PROG, which
 * inherits it; then categories and tracking go back to what they were,
 * and PROG's events (and its descendants') are printed as `trace dump
 * tree=PID` would. The observers (the shell, traced) are not tracked, so
 * they add nothing; init's own few events around the spawn are recorded
 * but belong to another pid.
 */
static void verb_run(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_status before;
	struct traced_filter f = {.flags = TRACED_F_PID | TRACED_F_TREE};
	uint64_t cats;
	char why[WHY_MAX];
	struct job *job;
	int first = argc > 2 && !traced_categories_parse(argv[1], &cats, why, sizeof(why)) ? 2 : 1;

	if (first == 1) {
		cats = TTRACE_CAT_ALL;
	}
	if (argc <= first) {
		usage(verb);
		return;
	}
	if (failed(traced_status(&before))) {
		return;
	}
	uint64_t added = cats & ~before.mask;
	uint32_t self = (uint32_t)sys_getpid();
	long err = traced_request(TRACED_OP_UNTRACK, TRACED_UNTRACK_ALL, NULL, 0, NULL, 0, NULL);
	err = err ? err : traced_request(TRACED_OP_TRACK, self, NULL, 0, NULL, 0, NULL);
	err = err || !added ? err : traced_request(TRACED_OP_ENABLE, added, NULL, 0, NULL, 0, NULL);
	int started = err ? 0
			  : jobs_start(argv[first], argc - first, argv + first, false,
				       TRACED_LEVEL_SELF, 0, &job);
	traced_request(TRACED_OP_UNTRACK, self, NULL, 0, NULL, 0, NULL);
	if (!err && !started) {
		f.pid = job->pid;
		jobs_launch(job); /* untracked now: the shell's line is not in its trace */
		jobs_wait_foreground(job);
	}
	if (added) {
		traced_request(TRACED_OP_DISABLE, added, NULL, 0, NULL, 0, NULL);
	}
	restore_tracking(&before);
	if (failed(err)) {
		return;
	}
	if (started) {
		jobs_start_failed("trace", argv[first], started);
		return;
	}
	trace_run_report(&f);
}

/* The aux tags' set names, "syscalls kinds ...", separated by sep. */
static void tag_names(char *buf, size_t size, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t tag = 1; tag < TTRACE_AUX_TAG_LIMIT && n < size; tag++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s", tag > 1 ? sep : "",
				      ttrace_aux_tag_name(tag, true));
	}
}

static void verb_strings(const struct trace_verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;
	char known[LIST_MAX];
	uint32_t tag = 0;

	if (argc > 2) {
		usage(verb);
		return;
	}
	while (argc == 2 && ++tag < TTRACE_AUX_TAG_LIMIT &&
	       strcmp(argv[1], ttrace_aux_tag_name(tag, true))) {
	}
	if (tag == TTRACE_AUX_TAG_LIMIT) {
		tag_names(known, sizeof(known), " ");
		printf("trace: unknown strings '%s' (known: %s)\n", argv[1], known);
		return;
	}
	traced_pager_strings(&pager, tag);
	printf("# %llu strings\n", (unsigned long long)print_listing(&pager));
}

/* What the verbs in other files share (trace_cmd.h). */
bool trace_failed(long err)
{
	return failed(err);
}

bool trace_filter_words(int argc, char **argv, struct traced_filter *f)
{
	return filter_words(argc, argv, f);
}

uint64_t trace_print_listing(struct traced_pager *pager)
{
	return print_listing(pager);
}

static const struct trace_verb verbs[] = {
    {"on", "CATS (e.g. mem,ipc or all or user:NAME)", "start tracing them", verb_on},
    {"off", "[CATS]", "stop tracing them (all if none given)", verb_off},
    {"status", "", "mask, mode, per-CPU counts", verb_status},
    {"dump", "[FILTERS]", "the events that pass the filters, oldest first", verb_dump},
    {"clear", "", "discard every ring's events", verb_clear},
    {"mode", "overwrite|drop", "when a ring is full", verb_mode},
    {"follow", "[FILTERS]", "print events as they come (Ctrl-C or pid=N's end stops)", verb_follow},
    {"save", "[FILTERS] [as NAME]", "write them to the host: build/traces/NAME.spoor",
     trace_verb_save},
    {"record", "[CATS] [FILTERS] [as NAME] | stop",
     "stream them to the host as they come: build/traces/NAME.spoor", trace_verb_record},
    {"track", "PID...", "record only these processes and what they spawn", verb_track},
    {"untrack", "PID...|all", "stop tracking them (all: record everyone again)", verb_untrack},
    {"run", "[CATS] PROG [ARGS]", "trace one program, then its first events and stats", verb_run},
    {"echo", "on|off [CATS]", "the kernel prints those events on the console too", verb_echo},
    {"stack", "on KINDS|CATS|off", "their events carry their call stacks", trace_verb_stack},
    {"profile", "[HZ] [CPU|all]|off", "sample every cpu's stack HZ (997) times a second",
     trace_verb_profile},
    {"top", "[SECONDS]", "the kernel functions the samples found most (last 5 s)", trace_verb_top},
    {"stats", "[FILTERS]",
     "counts per kind; syscall, IPC, fault and wakeup latencies (help trace stats: the legend)",
     trace_verb_stats},
    {"hist", "MEASURE [KEY=VALUE] [FILTERS]", "a log2 histogram of one latency", trace_verb_hist},
    {"strings", "[SET]", "the aux strings, of one set or all", verb_strings},
    {"events", "", "the user events, as Linux's user_events_status", verb_events},
    {"register", "'NAME [TYPE FIELD;...]'", "define a user event", verb_register},
    {"unregister", "NAME", "delete a user event nobody holds", verb_unregister},
};

#define NUM_VERBS (sizeof(verbs) / sizeof(verbs[0]))

void trace_verbs_format(char *buf, size_t size, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NUM_VERBS && n < size; i++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? sep : "", verbs[i].name);
	}
}

/* `trace` alone: every verb, then what FILTERS and SET stand for. */
static void list_verbs(void)
{
	char list[LIST_MAX];

	for (size_t i = 0; i < NUM_VERBS; i++) {
		printf("  trace %s%s%s: %s\n", verbs[i].name, *verbs[i].args ? " " : "",
		       verbs[i].args, verbs[i].what);
	}
	traced_filter_usage(list, sizeof(list));
	printf("  FILTERS: %s\n", list);
	tag_names(list, sizeof(list), "|");
	printf("  SET: %s\n", list);
}

void cmd_trace(int argc, char **argv)
{
	const struct trace_verb *verb = NULL;
	char known[LIST_MAX];

	for (size_t i = 0; argc > 1 && i < NUM_VERBS; i++) {
		if (!strcmp(argv[1], verbs[i].name)) {
			verb = &verbs[i];
		}
	}
	if (!verb) {
		if (argc > 1) {
			trace_verbs_format(known, sizeof(known), " ");
			printf("trace: unknown command '%s' (known: %s)\n", argv[1], known);
			return;
		}
		list_verbs();
		return;
	}
	int slot = services_client(TRACED_NAME, TRACED_LEVEL_CONTROL);
	if (slot < 0) {
		printf("trace: traced is not running\n");
		return;
	}
	traced_use(slot);
	verb->run(verb, argc - 1, argv + 1);
}
