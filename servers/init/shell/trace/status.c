/*
 * status: `trace status`, what tracing is doing now: the mask, the mode,
 * the area's geometry, PID tracking, whether traced's own events are
 * recorded (self), the echo, the filters, the triggers, stacks and profiler, the
 * recording, and every CPU's ledger.
 */
#include <stdio.h>
#include <trace_client.h>

#include "common/trace_names.h"
#include "servers/init/shell/trace/filter.h"
#include "servers/init/shell/trace/probe.h"
#include "servers/init/shell/trace/prof.h"
#include "servers/init/shell/trace/record.h"
#include "servers/init/shell/trace/status.h"
#include "servers/init/shell/trace/trigger.h"
#include "servers/init/shell/trace/verb.h"
#include "servers/init/words.h"

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

void status_verb(const struct verb *verb, int argc, char **argv)
{
	struct traced_status st;
	char names[CATEGORIES_MAX];
	char up[UPTIME_WORDS_MAX];

	(void)argv;
	if (argc != 1) {
		verb_usage(verb);
		return;
	}
	if (verb_failed(traced_call_status(&st))) {
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
	printf("self: %s\n", st.self ? "on" : "off");
	ttrace_category_format(st.echo, names, sizeof(names));
	printf("echo: %s\n", names);
	filter_status(&st);
	trigger_status();
	probe_status();
	prof_status(&st);
	record_status();
	for (uint32_t i = 0; i < st.num_cpus && i < TTRACE_MAX_CPUS; i++) {
		const struct traced_cpu_status *c = &st.cpu[i];
		printf(
		    "cpu %u: emitted %llu stored %llu overwritten %llu dropped %llu cleared %llu "
		    "filtered %llu\n",
		    i, (unsigned long long)c->emitted, (unsigned long long)c->stored,
		    (unsigned long long)c->overwritten, (unsigned long long)c->dropped,
		    (unsigned long long)c->cleared, (unsigned long long)st.filtered[i]);
	}
}
