/*
 * top: the shell's `trace top [SECONDS]`, the kernel functions the
 * profiler's samples (trace profile) found running most in the last
 * SECONDS, named by the symbol table the kernel links in (sys_ksym): an
 * answer in the guest, without the host's tools.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace.h"
#include "servers/init/shell/trace/top.h"
#include "servers/init/shell/trace/verb.h"

#define TOP_SECONDS	5    /* the window when none is given */
#define TOP_SECONDS_MAX 3600 /* an hour: more than any ring holds at 997 Hz */
#define TOP_FUNCS	256  /* distinct functions counted; the rest count as "other" */
#define TOP_ROWS	10
#define NAME_MAX_	64
#define NS_PER_S	1000000000ull

struct func {
	char name[NAME_MAX_];
	uint64_t n;
};

struct tally {
	struct func f[TOP_FUNCS];
	size_t len;
	uint64_t samples, kernel, other;
};

/* Counts one kernel sample at ip under its function's name (hex if the table has none). */
static void count(struct tally *t, uint64_t ip)
{
	char name[NAME_MAX_];

	if (sys_ksym(ip, name, sizeof(name)) < 0) {
		snprintf(name, sizeof(name), "0x%lx", (unsigned long)ip);
	}
	for (size_t i = 0; i < t->len; i++) {
		if (!strcmp(t->f[i].name, name)) {
			t->f[i].n++;
			return;
		}
	}
	if (t->len == TOP_FUNCS) {
		t->other++;
		return;
	}
	snprintf(t->f[t->len].name, NAME_MAX_, "%s", name);
	t->f[t->len++].n = 1;
}

/* One page of the dump's text: each prof_sample line counted; stack lines skipped. */
static void scan(struct tally *t, const char *text, size_t len)
{
	const char *end = text + len;

	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		char buf[256];

		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1),
			 line);
		const char *ip = strstr(buf, " prof_sample ip=");
		if (ip) {
			t->samples++;
			if (strstr(buf, " mode=kernel")) {
				t->kernel++;
				count(t, strtoul(ip + strlen(" prof_sample ip="), NULL, 16));
			}
		}
		line += n + 1;
	}
}

/* "  45.07%      108  name": a share in hundredths of a percent (no floating point here). */
static void row(uint64_t n, uint64_t all, const char *name)
{
	uint64_t bp = n * 10000 / all;

	printf("  %3lu.%02lu%% %8lu  %s\n", (unsigned long)(bp / 100), (unsigned long)(bp % 100),
	       (unsigned long)n, name);
}

static int by_count(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->name, y->name);
}

void top_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;
	static struct tally t;
	struct traced_status st;
	struct traced_filter f = {.flags = TRACED_F_KINDS};
	long seconds = TOP_SECONDS;

	if (argc > 2) {
		verb_usage(verb);
		return;
	}
	if (argc == 2) {
		char *end;
		seconds = strtol(argv[1], &end, 10);
		if (*end || seconds < 1 || seconds > TOP_SECONDS_MAX) {
			printf("trace: '%s' is not a number of seconds (1..%d)\n", argv[1],
			       TOP_SECONDS_MAX);
			return;
		}
	}
	if (verb_failed(traced_call_status(&st))) {
		return;
	}
	f.kinds[TTRACE_KIND_prof_sample / 64] = 1ull << (TTRACE_KIND_prof_sample % 64);
	if (st.uptime_ns > (uint64_t)seconds * NS_PER_S) {
		f.flags |= TRACED_F_SINCE;
		f.since_ns = st.uptime_ns - (uint64_t)seconds * NS_PER_S;
	}
	memset(&t, 0, sizeof(t));
	traced_pager_dump(&pager, TRACED_OP_DUMP, &f, TRACED_FORMAT_TEXT);
	for (uint32_t flags = 0; !(flags & TRACED_DUMP_DONE);) {
		const uint8_t *data;
		size_t len;
		if (verb_failed(traced_pager_next(&pager, &data, &len, &flags))) {
			return;
		}
		scan(&t, (const char *)data, len);
	}
	if (!t.kernel) {
		printf(
		    "trace: no kernel samples in the last %ld s (%lu samples; trace profile starts "
		    "the profiler)\n",
		    seconds, (unsigned long)t.samples);
		return;
	}
	qsort(t.f, t.len, sizeof(t.f[0]), by_count);
	printf("trace: top kernel functions of the last %ld s: %lu samples, %lu in the kernel\n",
	       seconds, (unsigned long)t.samples, (unsigned long)t.kernel);
	for (size_t i = 0; i < t.len && i < TOP_ROWS; i++) {
		row(t.f[i].n, t.kernel, t.f[i].name);
	}
	if (t.other) {
		row(t.other, t.kernel, "(other functions)");
	}
}
