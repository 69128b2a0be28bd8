/*
 * trace_stats: the shell's `trace stats` and `trace hist`. traced makes
 * the answer's text (servers/traced/stats.c); the shell pages it out.
 */
#include <stdio.h>
#include <trace_client.h>

#include "trace_cmd.h"

/* Prints a STATS answer, page by page. */
static void print_stats(const struct traced_stats_request *r)
{
	static struct traced_pager pager;

	traced_pager_stats(&pager, r);
	trace_print_listing(&pager);
}

void trace_verb_stats(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_stats_request r = {.form = TRACED_STATS_TABLE};

	(void)verb;
	if (trace_filter_words(argc, argv, &r.filter)) {
		print_stats(&r);
	}
}

void trace_verb_hist(const struct trace_verb *verb, int argc, char **argv)
{
	struct traced_stats_request r;
	char why[WHY_MAX];
	int used = traced_hist_parse(argc - 1, argv + 1, &r, why, sizeof(why));

	(void)verb;
	if (used < 0) {
		printf("trace: %s\n", why);
		return;
	}
	/* trace_filter_words() skips its first word, as it skips the verb. */
	if (trace_filter_words(argc - used, argv + used, &r.filter)) {
		print_stats(&r);
	}
}
