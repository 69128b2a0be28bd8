/*
 * control: the verbs that change what the kernel records: `trace on` and
 * `trace off` (categories and user events), `trace clear`, `trace mode`
 * `trace echo` and `trace self`. Each is one or a few CONTROL requests to traced and
 * prints a line confirming what happened.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/uevent.h"
#include "common/trace_names.h"
#include "servers/init/console.h"
#include "servers/init/shell/trace/control.h"
#include "servers/init/shell/trace/filter.h"
#include "servers/init/shell/trace/verb.h"

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
	long err = on ? traced_call_event_on(name, &now) : traced_call_event_off(name, &now);

	if (err == -ENOENT || err == -EINVAL) {
		printf("trace: no user event '%s' (see trace events)\n", name);
		return false;
	}
	if (verb_failed(err)) {
		return false;
	}
	char what[UEVENT_NAME_MAX + 32];
	snprintf(what, sizeof(what), "%s user event %s", on ? "enabled" : "disabled", name);
	print_mask(what, now);
	return true;
}

/*
 * on/off: the categories and user events (user:NAME) of argv[1], comma
 * separated ("all" if absent and allowed). False, said why, if it failed.
 */
static bool switch_categories(const struct verb *verb, int argc, char **argv, bool on)
{
	char why[WHY_MAX];
	char cats[LINE_MAX] = "";
	uint64_t mask, now;

	if (argc > 2 || (on && argc < 2)) {
		verb_usage(verb);
		return false;
	}
	/* User events by name go one by one; the categories go in one request. */
	char *save = NULL;
	int words = 0;
	for (char *w = argc == 2 ? strtok_r(argv[1], ",", &save) : NULL; w;
	     w = strtok_r(NULL, ",", &save), words++) {
		if (!strncmp(w, EVENT_PREFIX, strlen(EVENT_PREFIX))) {
			if (!switch_event(w + strlen(EVENT_PREFIX), on)) {
				return false;
			}
		} else {
			strcat(strcat(cats, *cats ? "," : ""), w);
		}
	}
	if (argc == 2 && !words) {
		printf("trace: no category given (e.g. mem,ipc or all)\n");
		return false;
	}
	if (argc == 2 && !*cats) {
		return true; /* only user events, each confirmed */
	}
	if (traced_categories_parse(argc == 2 ? cats : "all", &mask, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return false;
	}
	if (verb_failed(on ? traced_call_enable(mask, &now) : traced_call_disable(mask, &now))) {
		return false;
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
	return true;
}

void control_on(const struct verb *verb, int argc, char **argv)
{
	if (!filter_on(verb, argc, argv)) {
		(void)switch_categories(verb, argc, argv, true);
	}
}

void control_off(const struct verb *verb, int argc, char **argv)
{
	char targets[LINE_MAX];

	if (filter_off(verb, argc, argv)) {
		return;
	}
	/* a copy: switch_categories() cuts argv[1] at its commas */
	snprintf(targets, sizeof(targets), "%s", argc == 2 ? argv[1] : "all");
	if (switch_categories(verb, argc, argv, false)) {
		filter_drop(targets);
	}
}

void control_clear(const struct verb *verb, int argc, char **argv)
{
	uint64_t now;

	(void)argv;
	if (argc != 1) {
		verb_usage(verb);
		return;
	}
	long err = traced_call_clear(&now);
	if (err == -EBUSY) {
		printf("trace: a recording is running (trace record stop ends it); a clear would "
		       "take events it counts\n");
	} else if (!verb_failed(err)) {
		print_mask("cleared every ring", now);
	}
}

void control_mode(const struct verb *verb, int argc, char **argv)
{
	uint64_t mode;

	if (argc != 2 || (strcmp(argv[1], "overwrite") && strcmp(argv[1], "drop"))) {
		verb_usage(verb);
		return;
	}
	mode = strcmp(argv[1], "drop") ? TTRACE_MODE_OVERWRITE : TTRACE_MODE_DROP;
	if (!verb_failed(traced_call_mode(mode, NULL))) {
		printf("trace: mode %s\n", argv[1]);
	}
}

/* echo on|off [CATS]: the kernel's console echo of those categories (all if none). */
void control_echo(const struct verb *verb, int argc, char **argv)
{
	struct traced_status st;
	char why[WHY_MAX], names[CATEGORIES_MAX];
	uint64_t cats = TTRACE_CAT_ALL;
	bool on = argc >= 2 && !strcmp(argv[1], "on");

	if (argc < 2 || argc > 3 || (!on && strcmp(argv[1], "off"))) {
		verb_usage(verb);
		return;
	}
	if (argc == 3 && traced_categories_parse(argv[2], &cats, why, sizeof(why))) {
		printf("trace: %s\n", why);
		return;
	}
	if (verb_failed(traced_call_status(&st))) {
		return;
	}
	uint64_t echo = on ? st.echo | cats : st.echo & ~cats;
	if (verb_failed(traced_call_echo(echo, NULL))) {
		return;
	}
	ttrace_category_format(echo, names, sizeof(names));
	printf("trace: echo on the console: %s", names);
	ttrace_category_format(echo & ~st.mask, names, sizeof(names));
	printf("%s%s%s\n", echo & ~st.mask ? " (not traced now: trace on " : "",
	       echo & ~st.mask ? names : "", echo & ~st.mask ? ")" : "");
}

/* self on|off: traced's own events recorded, or left out (the default). */
void control_self(const struct verb *verb, int argc, char **argv)
{
	bool on = argc == 2 && !strcmp(argv[1], "on");

	if (argc != 2 || (!on && strcmp(argv[1], "off"))) {
		verb_usage(verb);
		return;
	}
	if (!verb_failed(traced_call_self(on))) {
		printf("trace: self %s: traced's own events are %s\n", argv[1],
		       on ? "recorded" : "left out");
	}
}
