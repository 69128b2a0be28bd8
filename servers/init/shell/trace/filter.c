/*
 * filter: the shell's side of the kernel's filters (filter.h). Each
 * change is a FILTER request to traced, then an ENABLE of the kinds'
 * categories: the filter holds before the first event of a category it
 * turns on is recorded.
 */
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/trace_names.h"
#include "common/trace_pred_parse.h"
#include "servers/init/console.h"
#include "servers/init/shell/trace/filter.h"

#define IF_WORD	  "if"
#define KINDS_MAX 512 /* the names of a set of kinds, in one line */

/* Writes the names of kinds (bit k for kind k) as a comma list. */
static void kind_names(uint64_t kinds, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (kinds >> k & 1 && info && at < size) {
			at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? "," : "",
					       info->name);
		}
	}
}

/* Sends "targets[ if pred]" to traced; false, said why, if it failed. */
static bool set_filter(const char *targets, const char *pred)
{
	char text[LINE_MAX];
	char names[KINDS_MAX];
	uint64_t kinds;

	snprintf(text, sizeof(text), "%s%s%s", targets, pred ? " " IF_WORD " " : "",
		 pred ? pred : "");
	if (verb_failed(traced_call_filter(text, &kinds))) {
		return false;
	}
	kind_names(kinds, names, sizeof(names));
	if (pred) {
		printf("trace: filter on %s: %s\n", names, pred);
	} else {
		printf("trace: no filter on %s\n", names);
	}
	return true;
}

/* Turns cats on, as `trace on CATS` does, and says so. */
static void enable(uint64_t cats)
{
	char cat_names[CATEGORIES_MAX], names[CATEGORIES_MAX];
	uint64_t now;

	if (verb_failed(traced_call_enable(cats, &now))) {
		return;
	}
	ttrace_category_format(cats, cat_names, sizeof(cat_names));
	ttrace_category_format(now, names, sizeof(names));
	printf("trace: enabled %s; tracing now: %s\n", cat_names, names);
}

/* The predicate: the words after "if", joined by spaces, into buf; false, said, if too long. */
static bool join(int argc, char **argv, char *buf, size_t size)
{
	char why[TTRACE_PRED_WHY_MAX];

	if (ttrace_pred_join(argc - 3, argv + 3, buf, size, why, sizeof(why))) {
		printf("trace: bad filter: %s\n", why);
		return false;
	}
	return true;
}

bool filter_on(const struct verb *verb, int argc, char **argv)
{
	char why[WHY_MAX];
	char pred[TTRACE_PRED_TEXT_MAX + 1];
	uint64_t kinds, cats, only_cats;
	const char *bad;
	size_t bad_len;

	if (argc < 2 || strstr(argv[1], "user:")) {
		return false; /* user events by name: control.c's */
	}
	bool with_pred = argc >= 3;
	if (with_pred && (strcmp(argv[2], IF_WORD) || argc < 4)) {
		verb_usage(verb);
		return true;
	}
	bool pure_cats = !ttrace_category_parse(argv[1], &only_cats, &bad, &bad_len);
	if (ttrace_pred_targets(argv[1], &kinds, &cats, why, sizeof(why))) {
		if (!with_pred) {
			return false; /* control.c says which category it does not know */
		}
		printf("trace: %s\n", why);
		return true;
	}
	if (with_pred) {
		if (!join(argc, argv, pred, sizeof(pred))) {
			return true;
		}
		if (ttrace_pred_check(pred, kinds, why, sizeof(why))) {
			printf("trace: bad filter: %s\n", why);
			return true;
		}
		if (set_filter(argv[1], pred)) {
			enable(cats);
		}
		return true;
	}
	/* no predicate: the kinds lose their filters, if any has one */
	struct traced_status st;
	if (verb_failed(traced_call_status(&st))) {
		return true;
	}
	if (kinds & st.filter_kinds) {
		char names[KINDS_MAX];
		kind_names(kinds & st.filter_kinds, names, sizeof(names));
		if (!set_filter(names, NULL)) {
			return true;
		}
	}
	if (pure_cats) {
		return false; /* the categories go on as they always did */
	}
	enable(cats);
	return true;
}

/* Turns cats off, as `trace off CATS` does, and says so; false, said why, if it failed. */
static bool disable(uint64_t cats)
{
	char cat_names[CATEGORIES_MAX], names[CATEGORIES_MAX];
	uint64_t now;

	if (verb_failed(traced_call_disable(cats, &now))) {
		return false;
	}
	ttrace_category_format(cats, cat_names, sizeof(cat_names));
	ttrace_category_format(now, names, sizeof(names));
	printf("trace: disabled %s; tracing now: %s\n", cat_names, names);
	return true;
}

bool filter_off(const struct verb *verb, int argc, char **argv)
{
	char why[WHY_MAX];
	uint64_t kinds, cats, only_cats;
	const char *bad;
	size_t bad_len;

	(void)verb;
	if (argc != 2 || strstr(argv[1], "user:") ||
	    !ttrace_category_parse(argv[1], &only_cats, &bad, &bad_len) ||
	    ttrace_pred_targets(argv[1], &kinds, &cats, why, sizeof(why))) {
		return false; /* categories, user events or wrong words: control.c's */
	}
	/* off first: nothing is recorded unfiltered between the two */
	if (disable(cats)) {
		filter_drop(argv[1]);
	}
	return true;
}

void filter_drop(const char *targets)
{
	char why[WHY_MAX];
	char names[KINDS_MAX];
	uint64_t kinds, cats;
	struct traced_status st;

	if (strstr(targets, "user:") ||
	    ttrace_pred_targets(targets, &kinds, &cats, why, sizeof(why)) ||
	    verb_failed(traced_call_status(&st))) {
		return; /* user events have no filter; a bad word was said already */
	}
	if (kinds & st.filter_kinds) {
		kind_names(kinds & st.filter_kinds, names, sizeof(names));
		(void)set_filter(names, NULL);
	}
}

void filter_status(const struct traced_status *st)
{
	if (!st->filter_kinds) {
		printf("filters: none\n");
		return;
	}
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		struct traced_filter_text t;
		if (!(st->filter_kinds >> k & 1)) {
			continue;
		}
		long err = traced_call_filter_text(k, &t);
		if (verb_failed(err)) {
			return;
		}
		if (t.len) {
			printf("filter %s: %.*s\n", ttrace_kind_info(k)->name, (int)t.len, t.text);
		} else {
			printf("filter %s: (set before traced last started)\n",
			       ttrace_kind_info(k)->name);
		}
	}
}
