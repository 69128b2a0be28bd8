/*
 * stats: the shell's `trace stats` and `trace hist`, and their
 * legend (`help trace stats`). traced makes the answer's text
 * (servers/traced/stats.c, by the rules of abi/traced.h STATS); the shell
 * pages it out.
 */
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace.h"
#include "common/trace_names.h"
#include "servers/init/shell/trace/listing.h"
#include "servers/init/shell/trace/stats.h"
#include "servers/init/shell/trace/verb.h"

#define LEGEND_LIST_MAX 64 /* the outcome names in one line */

void stats_print(const struct traced_stats_request *r)
{
	static struct traced_pager pager;

	traced_pager_stats(&pager, r);
	listing_print(&pager);
}

void stats_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_stats_request r;

	(void)verb;
	r = (struct traced_stats_request){.form = TRACED_STATS_TABLE};
	if (verb_filters(argc, argv, &r.filter, &r.pred)) {
		stats_print(&r);
	}
}

/* The category whose events each measure pairs. */
static const uint64_t measure_category[TRACED_MEASURE_LIMIT] = {
    [TRACED_MEASURE_SYSCALL] = TTRACE_CAT(SYSCALL),
    [TRACED_MEASURE_IPC] = TTRACE_CAT(IPC),
    [TRACED_MEASURE_PF] = TTRACE_CAT(MEM),
    [TRACED_MEASURE_WAKEUP] = TTRACE_CAT(SCHED),
};

/*
 * After a histogram: says when the category it needs is not traced, so
 * an empty (or old) histogram is not taken for a quiet machine.
 */
static void not_traced(uint32_t measure)
{
	struct traced_status st;
	char name[LEGEND_LIST_MAX];

	if (traced_call_status(&st) || st.mask & measure_category[measure]) {
		return;
	}
	ttrace_category_format(measure_category[measure], name, sizeof(name));
	printf("# %s is not traced now: only what it recorded before is here (trace on %s)\n", name,
	       name);
}

void stats_hist(const struct verb *verb, int argc, char **argv)
{
	struct traced_stats_request r;
	char why[WHY_MAX];
	int used = traced_hist_parse(argc - 1, argv + 1, &r, why, sizeof(why));

	(void)verb;
	if (used < 0) {
		printf("trace: %s\n", why);
		return;
	}
	/* verb_filters() skips its first word, as it skips the verb. */
	if (!verb_filters(argc - used, argv + used, &r.filter, &r.pred)) {
		return;
	}
	stats_print(&r);
	not_traced(r.measure);
}

/* What each measure pairs, for the legend: abi/traced.h STATS in a person's words. */
static const char *const measure_pairs[TRACED_MEASURE_LIMIT] = {
    [TRACED_MEASURE_SYSCALL] = "syscall_entry to syscall_exit of a thread; a row per call",
    [TRACED_MEASURE_IPC] =
	"ipc_call to the ipc_reply answering it; a row per endpoint and\n"
	"             path (fast: the caller's ipc_fastpath came between), with\n"
	"             the server seen taking its calls: 2 (traced), ? if unseen",
    [TRACED_MEASURE_PF] = "mem_pf_entry to the mem_pf of a thread; a row per outcome",
    [TRACED_MEASURE_WAKEUP] = "sched_wakeup of a thread to the sched_switch running it; a row\n"
			      "             per cpu it ran on",
};

static void legend(void)
{
	char outcomes[LEGEND_LIST_MAX] = "";
	size_t n = 0;

	for (uint32_t o = 0; o < TTRACE_PF_LIMIT; o++) {
		n += (size_t)snprintf(outcomes + n, sizeof(outcomes) - n, "%s%s", o ? " " : "",
				      traced_outcome_name(o));
	}
	printf("trace stats [FILTERS]: answers over the events `trace dump FILTERS` shows\n"
	       "  # stats: N events, L lost   as a dump ends; the line after it says which lost\n"
	       "           entries could not have matched the filters and which may have\n"
	       "  kind, count   events of each kind: the kinds seen, and those kind= names\n"
	       "  then a table for each measure seen, a latency between two events:\n");
	for (uint32_t m = 1; m < TRACED_MEASURE_LIMIT; m++) {
		printf("    %-8s %s\n", traced_measure_name(m), measure_pairs[m]);
	}
	printf("             (pf outcomes: %s)\n"
	       "  count     pairs measured\n"
	       "  unpaired  halves whose other half is outside the window or behind a loss, and\n"
	       "            pairs whose time went backwards (2 each): counted, never guessed\n"
	       "  unknown   the row of unpaired halves that cannot tell their row: a fault\n"
	       "            without its outcome, a wakeup not run, a reply whose call is unseen\n"
	       "  min p50 p90 p99 max   microseconds (each time cut to the microsecond, then\n"
	       "            subtracted); pN is the value at rank ceil(N * count / 100); exact\n"
	       "            while a row has at most %u distinct values, else the start of a\n"
	       "            bucket an eighth of its value wide: at most 12.5%% low; - when the\n"
	       "            row has no pair\n"
	       "trace hist MEASURE [KEY=VALUE] [FILTERS]: the same latencies in power-of-two\n"
	       "  buckets, [lo, hi) microseconds, as bpftrace's hist() draws them\n",
	       outcomes, (unsigned)TRACED_STATS_VALUES);
}

bool stats_help(const char *verb)
{
	if (strcmp(verb, "stats") && strcmp(verb, "hist")) {
		return false;
	}
	legend();
	return true;
}
