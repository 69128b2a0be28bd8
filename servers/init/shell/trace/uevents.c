/*
 * uevents: the user-event verbs: `trace events` lists them, `trace
 * register` defines one, which the shell then holds until `trace
 * unregister` lets it go.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/uevent_parse.h"
#include "servers/init/console.h"
#include "servers/init/shell/trace/listing.h"
#include "servers/init/shell/trace/uevents.h"
#include "servers/init/shell/trace/verb.h"

void uevents_list(const struct verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;

	(void)argv;
	if (argc != 1) {
		verb_usage(verb);
		return;
	}
	traced_pager_events(&pager);
	listing_print(&pager);
}

/* The user events the shell registered: it holds them until `trace unregister`. */
static struct trace_uevent held[UEVENT_MAX];
static char held_names[UEVENT_MAX][UEVENT_NAME_MAX + 1];

void uevents_register(const struct verb *verb, int argc, char **argv)
{
	struct trace_uevent ev;
	char desc[LINE_MAX] = "";

	if (argc < 2) {
		verb_usage(verb);
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
	if (verb_failed(err)) {
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

void uevents_unregister(const struct verb *verb, int argc, char **argv)
{
	if (argc != 2) {
		verb_usage(verb);
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
	long err = traced_call_unregister(argv[1]);
	if ((err == -ENOENT || err == -EINVAL) && !let_go) {
		printf("trace: no user event '%s' (see trace events)\n", argv[1]);
	} else if (err == -EBUSY) {
		/* The shell's own hold is gone all the same: unregistering is letting go. */
		printf("trace: user event '%s' is busy: a program holds it\n", argv[1]);
	} else if (err == -ENOENT || !verb_failed(err)) {
		/* -ENOENT after the shell let go: the kernel released it with its last hold. */
		printf("trace: unregistered user event '%s'\n", argv[1]);
	}
}
