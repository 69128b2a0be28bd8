/*
 * prof: the shell's `trace stack` (call stacks on chosen events) and
 * `trace profile` (the sampling profiler), both CONTROL operations of
 * traced (abi/traced.h STACK, PROFILE; abi/trace.h CALL STACKS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace.h"
#include "common/trace_names.h"
#include "servers/init/shell/trace/prof.h"
#include "servers/init/shell/trace/verb.h"

#define NAMES_MAX 512

/* The kinds a comma list of kind and category names stands for; false, said why, if bad. */
static bool kinds_parse(char *list, uint64_t *kinds)
{
	*kinds = 0;
	for (char *w = list, *next; w; w = next) {
		uint64_t cats = 0;

		next = strchr(w, ',');
		if (next) {
			*next++ = 0;
		}
		bool all = !strcmp(w, "all"), known = all;

		for (uint32_t bit = 0; ttrace_category_name(bit); bit++) {
			if (!strcmp(w, ttrace_category_name(bit))) {
				cats = 1ull << bit;
			}
		}
		for (uint32_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
			const struct ttrace_kind_info *ki = ttrace_kind_info(k);
			bool named = ki && (!strcmp(w, ki->name) || ki->category & cats || all);

			if (named && k != TTRACE_KIND_user) {
				*kinds |= 1ull << k;
			}
			known = known || (ki && !strcmp(w, ki->name)) || cats;
		}
		if (!known) {
			printf("trace: '%s' is neither an event kind nor a category (see trace "
			       "strings "
			       "kinds)\n",
			       w);
			return false;
		}
	}
	return true;
}

/* The names of the kinds in kinds, comma separated. */
static void kinds_format(uint64_t kinds, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t k = 1; k < TTRACE_KIND_LIMIT && n < size; k++) {
		if (kinds >> k & 1) {
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
					      ttrace_kind_info(k)->name);
		}
	}
}

/*
 * stack on KINDS|CATS / stack off [KINDS|CATS]: which kinds' events carry
 * their call stack. on adds to the kinds chosen before and off takes out
 * the ones named, as `trace on` and `trace off` do with categories; the
 * kernel joins the sets (traced's STACK_ON, STACK_OFF), so a program
 * run with -t changing them meanwhile loses nothing. Says every kind
 * that carries its stack afterwards.
 */
void prof_stack(const struct verb *verb, int argc, char **argv)
{
	struct traced_status st;
	char names[NAMES_MAX];
	uint64_t kinds = 0;
	bool on = argc == 3 && !strcmp(argv[1], "on");
	bool off = (argc == 2 || argc == 3) && !strcmp(argv[1], "off");

	if (!on && !off) {
		verb_usage(verb);
		return;
	}
	if (argc == 3 && !kinds_parse(argv[2], &kinds)) {
		return;
	}
	long (*ask)(uint64_t, uint64_t *) = on		? traced_call_stack_on
					    : argc == 3 ? traced_call_stack_off
							: traced_call_stack;
	if (verb_failed(ask(kinds, NULL)) || verb_failed(traced_call_status(&st))) {
		return;
	}
	if (!st.stack_kinds) {
		printf("trace: call stacks off\n");
		return;
	}
	kinds_format(st.stack_kinds, names, sizeof(names));
	printf("trace: call stacks on %s\n", names);
}

void prof_status(const struct traced_status *st)
{
	char names[NAMES_MAX];
	uint32_t every = (uint32_t)((1ull << st->num_cpus) - 1);

	kinds_format(st->stack_kinds, names, sizeof(names));
	printf("stacks: %s\n", st->stack_kinds ? names : "off");
	if (!st->profile_hz) {
		printf("profile: off\n");
		return;
	}
	if (st->profile_cpus == every) {
		printf("profile: every cpu at %u Hz\n", st->profile_hz);
		return;
	}
	printf("profile: cpu");
	for (uint32_t c = 0; c < st->num_cpus; c++) {
		if (st->profile_cpus >> c & 1) {
			printf(" %u", c);
		}
	}
	printf(" at %u Hz\n", st->profile_hz);
}

/* A CPU word: a number below the CPU count. */
static bool cpu_word(const char *w, uint32_t num_cpus, uint32_t *cpu)
{
	char *end;
	unsigned long v = strtoul(w, &end, 10);

	if (*w < '0' || *w > '9' || *end || v >= num_cpus) {
		printf("trace: '%s' is not a cpu (0..%u or all)\n", w, num_cpus - 1);
		return false;
	}
	*cpu = (uint32_t)v;
	return true;
}

/* profile [HZ] [CPU|all] / profile off: the sampling profiler. */
void prof_profile(const struct verb *verb, int argc, char **argv)
{
	struct traced_status st;
	uint32_t hz = TTRACE_PROFILE_HZ_DEFAULT, cpu = 0;
	bool all = true;

	if (argc > 3 || (argc == 3 && !strcmp(argv[1], "off"))) {
		verb_usage(verb);
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "off")) {
		if (!verb_failed(traced_call_profile(0, NULL))) {
			printf("trace: profiler off\n");
		}
		return;
	}
	if (verb_failed(traced_call_status(&st))) {
		return;
	}
	if (argc >= 2) {
		char *end;
		unsigned long v = strtoul(argv[1], &end, 10);

		if (argv[1][0] < '0' || argv[1][0] > '9' || *end) {
			printf("trace: '%s' is not a rate in Hz\n", argv[1]);
			return;
		}
		if (v < TTRACE_PROFILE_HZ_MIN || v > TTRACE_PROFILE_HZ_MAX) {
			printf("trace: %s Hz is outside %d..%d\n", argv[1], TTRACE_PROFILE_HZ_MIN,
			       TTRACE_PROFILE_HZ_MAX);
			return;
		}
		hz = (uint32_t)v;
	}
	if (argc == 3 && strcmp(argv[2], "all")) {
		if (!cpu_word(argv[2], st.num_cpus, &cpu)) {
			return;
		}
		all = false;
	}
	uint32_t cpus = all ? (uint32_t)((1ull << st.num_cpus) - 1) : 1u << cpu;
	long err = traced_call_profile(TTRACE_PROFILE_ARG(hz, cpus), NULL);
	if (verb_failed(err)) {
		return;
	}
	if (all) {
		printf("trace: profiling every cpu at %u Hz (trace profile off stops)\n", hz);
	} else {
		printf("trace: profiling cpu %u at %u Hz (trace profile off stops)\n", cpu, hz);
	}
}
