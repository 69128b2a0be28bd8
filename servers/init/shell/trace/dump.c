/*
 * dump: `trace dump [FILTERS] [if PREDICATE]`, traced's text of the
 * events the filters and the predicate pass, printed as it comes until its end or a Ctrl-C. A dump
 * longer than a screen first says how many events it is about to print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "servers/init/shell/trace/dump.h"
#include "servers/init/shell/trace/verb.h"

#define SCREEN_LINES 40 /* a dump longer than this says its size first */
#define EVENTS_KEY   "events="

/*
 * The count comes from a STATS request in its key=value form, whose first
 * line is "events=N lost=L": only the first page is read.
 */
long long dump_size(const struct traced_filter *f, const struct traced_pred *pred)
{
	static struct traced_pager pager;
	static struct traced_stats_request r;

	r = (struct traced_stats_request){.filter = *f, .form = TRACED_STATS_KV};
	if (pred) {
		r.pred = *pred;
	}
	const uint8_t *data;
	size_t len;
	uint32_t flags;

	traced_pager_stats(&pager, &r);
	long err = traced_pager_next(&pager, &data, &len, &flags);
	if (err) {
		return err;
	}
	if (len <= strlen(EVENTS_KEY) || memcmp(data, EVENTS_KEY, strlen(EVENTS_KEY))) {
		return -EPROTO;
	}
	/* The page is not a string: strtoull stops at the space after N, well inside it. */
	return (long long)strtoull((const char *)data + strlen(EVENTS_KEY), NULL, 10);
}

/* Before a dump: says how many events it will print, if more than a screenful. */
static void announce(const struct traced_filter *f, const struct traced_pred *pred)
{
	/* A dump asked for a few events needs no count of its own. */
	if (f->flags & (TRACED_F_COUNT | TRACED_F_LAST) && f->count <= SCREEN_LINES) {
		return;
	}
	long long n = dump_size(f, pred);
	if (n > SCREEN_LINES) {
		printf("# %lld events to print (Ctrl-C stops)\n", n);
	}
}

void dump_print(const struct traced_filter *f, const struct traced_pred *pred)
{
	static struct traced_pager pager;
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;

	announce(f, pred);
	traced_pager_dump(&pager, TRACED_OP_DUMP, f, TRACED_FORMAT_TEXT);
	if (pred) {
		traced_pager_pred(&pager, pred);
	}
	while (!(flags & TRACED_DUMP_DONE)) {
		if (verb_failed(traced_pager_next(&pager, &data, &len, &flags))) {
			return;
		}
		printf("%.*s", (int)len, (const char *)data);
		if (verb_interrupted(0)) {
			printf("^C\n# dump stopped\n");
			return;
		}
	}
}

void dump_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_pred pred;
	struct traced_filter f;

	(void)verb;
	if (verb_filters(argc, argv, &f, &pred)) {
		dump_print(&f, &pred);
	}
}
