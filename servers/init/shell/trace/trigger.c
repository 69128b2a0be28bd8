/*
 * trigger: `trace trigger KIND if PREDICATE then ACTION` and `trace
 * trigger off [KIND]`, the shell's side of the kernel's triggers
 * (abi/trace_pred.h, TRIGGERS), and their lines in `trace status`. The
 * shell checks the whole line first (the kind, the predicate with the
 * parser traced uses, the action), so a bad one gets one line and
 * changes nothing; then a TRIGGER request to traced, and an ENABLE of
 * the kind's category, so the trigger sees its events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "common/trace_names.h"
#include "common/trace_pred_parse.h"
#include "servers/init/shell/trace/export.h"
#include "servers/init/shell/trace/trigger.h"

#define IF_WORD	   "if"
#define THEN_WORD  "then"
#define AFTER_WORD "after"
#define OFF_WORD   "off"
#define ACTIONS	   "stop, save as NAME [after MS], stack, count"

/* The kind of name; 0, said why, if there is none. */
static uint16_t kind_named(const char *name)
{
	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (info && !strcmp(info->name, name)) {
			return k;
		}
	}
	printf("trace: unknown kind '%s' (a trigger is on one kind: trace events, or the kinds "
	       "of abi/trace_kinds.def)\n",
	       name);
	return 0;
}

/* The action's words (argc of them at argv) into r; false, said why, if they are wrong. */
static bool action(const struct verb *verb, int argc, char **argv, struct traced_trigger_request *r)
{
	static const struct {
		const char *word;
		uint32_t action;
	} actions[] = {
#define TTRACE_TRIG_ACTION_(value, NAME, word) {word, TTRACE_TRIG_##NAME},
	    TTRACE_TRIG_ACTIONS(TTRACE_TRIG_ACTION_)
#undef TTRACE_TRIG_ACTION_
	};

	for (size_t i = 0; argc && i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (!strcmp(argv[0], actions[i].word)) {
			r->action = actions[i].action;
		}
	}
	if (r->action != TTRACE_TRIG_SAVE) {
		if (!r->action || argc != 1) {
			printf("trace: bad trigger: unknown action '%s' (known: %s)\n",
			       argc ? argv[0] : "", ACTIONS);
			return false;
		}
		return true;
	}
	if (argc == 5 && !strcmp(argv[3], AFTER_WORD)) {
		char *end;
		long ms = strtol(argv[4], &end, 10);
		if (*end || end == argv[4] || ms < 0 || ms > TRACED_TRIGGER_AFTER_MAX) {
			printf("trace: bad trigger: after takes 0 to %u ms, not '%s'\n",
			       TRACED_TRIGGER_AFTER_MAX, argv[4]);
			return false;
		}
		r->after_ms = (uint32_t)ms;
		argc = 3;
	}
	if (!export_name(verb, &argc, argv, r->name)) {
		return false;
	}
	if (argc != 1 || !r->name[0]) {
		printf("trace: bad trigger: save takes as NAME [after MS]\n");
		return false;
	}
	return true;
}

/* The predicate: the words between "if" and "then", joined by spaces; false, said, if too long. */
static bool predicate(int from, int to, char **argv, struct traced_trigger_request *r)
{
	char text[TTRACE_PRED_TEXT_MAX + 1];
	char why[TTRACE_PRED_WHY_MAX];

	if (ttrace_pred_join(to - from, argv + from, text, sizeof(text), why, sizeof(why))) {
		printf("trace: bad trigger: %s\n", why);
		return false;
	}
	r->len = (uint32_t)strlen(text);
	memcpy(r->text, text, r->len);
	return true;
}

/* `trace trigger off [KIND]`. */
static void trigger_off(const struct verb *verb, int argc, char **argv)
{
	struct traced_trigger_request r = {0};

	if (argc > 3) {
		verb_usage(verb);
		return;
	}
	if (argc == 3 && !(r.kind = kind_named(argv[2]))) {
		return;
	}
	if (verb_failed(traced_call_trigger(&r))) {
		return;
	}
	if (argc == 3) {
		printf("trace: no trigger on %s\n", argv[2]);
	} else {
		printf("trace: no triggers\n");
	}
}

/* Turns the category of kind on, as `trace on` does, and says so. */
static void enable(uint16_t kind)
{
	char cat_names[CATEGORIES_MAX], names[CATEGORIES_MAX];
	uint64_t cats = ttrace_kind_info(kind)->category, now;

	if (verb_failed(traced_call_enable(cats, &now))) {
		return;
	}
	ttrace_category_format(cats, cat_names, sizeof(cat_names));
	ttrace_category_format(now, names, sizeof(names));
	printf("trace: enabled %s; tracing now: %s\n", cat_names, names);
}

void trigger_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_trigger_request r;
	char why[WHY_MAX];
	char text[TTRACE_PRED_TEXT_MAX + 1];
	int then = 0;

	if (argc >= 2 && !strcmp(argv[1], OFF_WORD)) {
		trigger_off(verb, argc, argv);
		return;
	}
	for (int i = 3; i < argc && !then; i++) {
		then = strcmp(argv[i], THEN_WORD) ? 0 : i;
	}
	if (argc < 6 || strcmp(argv[2], IF_WORD) || then < 4) {
		verb_usage(verb);
		return;
	}
	memset(&r, 0, sizeof(r));
	if (!(r.kind = kind_named(argv[1])) || !predicate(3, then, argv, &r)) {
		return;
	}
	memcpy(text, r.text, r.len);
	text[r.len] = 0;
	if (ttrace_pred_check(text, 1ull << r.kind, why, sizeof(why))) {
		printf("trace: bad trigger: %s\n", why);
		return;
	}
	if (!action(verb, argc - then - 1, argv + then + 1, &r)) {
		return;
	}
	if (verb_failed(traced_call_trigger(&r))) {
		return;
	}
	printf("trace: trigger on %s: %s then ", argv[1], text);
	for (int i = then + 1; i < argc; i++) {
		printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
	}
	enable(r.kind);
}

/* The name of action, as the shell takes it. */
static const char *action_word(uint32_t action)
{
	switch (action) {
#define TTRACE_TRIG_ACTION_(value, NAME, word)                                                     \
	case TTRACE_TRIG_##NAME:                                                                   \
		return word;
		TTRACE_TRIG_ACTIONS(TTRACE_TRIG_ACTION_)
#undef TTRACE_TRIG_ACTION_
	default:
		return "?";
	}
}

/* One trigger's status line: "trigger KIND: PRED then ACTION: fired N[, what came of it]". */
static void status_line(uint16_t kind, const struct traced_trigger_status *st)
{
	const struct traced_trigger_request *r = &st->set;

	printf("trigger %s: ", ttrace_kind_info(kind)->name);
	if (r->len) {
		printf("%.*s", (int)r->len, r->text);
	} else {
		printf("%s", r->n ? "(bytecode)" : "(set before traced last started)");
	}
	printf(" then %s", action_word(r->action));
	if (r->action == TTRACE_TRIG_SAVE && (r->len || r->n)) {
		printf(" as %.*s after %u", TRACED_SAVE_NAME_MAX, r->name, r->after_ms);
	}
	printf(": fired %llu", (unsigned long long)st->fired);
	if (r->action == TTRACE_TRIG_STOP && st->fired) {
		printf(", rings stopped (trace trigger off %s starts them)",
		       ttrace_kind_info(kind)->name);
	} else if (st->state == TRACED_TRIGGER_WAITING && r->action == TTRACE_TRIG_SAVE) {
		printf(", save on its way");
	} else if (st->state == TRACED_TRIGGER_SAVED) {
		printf(", saved %llu events to %.*s%s", (unsigned long long)st->events,
		       TRACED_SAVE_NAME_MAX, r->name, TTRACE_FILE_SUFFIX);
	} else if (st->state == TRACED_TRIGGER_FAILED) {
		printf(", save failed: %s", strerror(-st->err));
	}
	printf("\n");
}

void trigger_status(void)
{
	struct traced_trigger_status st;
	bool any = false;

	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		if (!ttrace_kind_info(k)) {
			continue;
		}
		if (verb_failed(traced_call_trigger_text(k, &st))) {
			return;
		}
		if (st.set.action != TTRACE_TRIG_NONE) {
			status_line(k, &st);
			any = true;
		}
	}
	if (!any) {
		printf("triggers: none\n");
	}
}
