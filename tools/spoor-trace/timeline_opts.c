/*
 * timeline_opts: the timeline's options (see timeline_opts.h). getopt_long
 * walks the arguments; this file only reads the values, and refuses
 * anything it does not take whole: "2x", "-1", "inf", "3-1".
 */
#include "tools/spoor-trace/timeline_opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000.0

void timeline_opts_init(struct timeline_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = TIMELINE_WIDTH_DEFAULT;
}

/* A time "[+]NUMBER[s|ms|us|ns]" into *e; false if s is not one. */
static bool parse_time(const char *s, struct timeline_edge *e)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {{"", NS_PER_S}, {"s", NS_PER_S}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};
	char *end;

	e->rel = *s == '+';
	s += e->rel;
	if (!isdigit((unsigned char)*s) && *s != '.') {
		return false; /* no sign, space, "inf" or "nan" */
	}
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v)) {
		return false;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].name)) {
			double ns = v * units[i].ns;
			if (ns >= 0x1p63) {
				return false;
			}
			e->ns = (uint64_t)(ns + 0.5);
			e->set = true;
			return true;
		}
	}
	return false;
}

/* A decimal number of s at *p no larger than max, advancing *p past it. */
static bool parse_number(const char **p, uint64_t max, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)**p)) {
		return false;
	}
	errno = 0;
	unsigned long long v = strtoull(*p, &end, 10);
	if (errno || v > max) {
		return false;
	}
	*p = end;
	*out = v;
	return true;
}

/* Calls add for each item, "N" or "N-M", of the comma-separated list s; false if malformed. */
static bool parse_list(const char *s, uint64_t max,
		       bool (*add)(void *ctx, uint64_t lo, uint64_t hi), void *ctx)
{
	do {
		uint64_t lo, hi;
		if (!parse_number(&s, max, &lo)) {
			return false;
		}
		hi = lo;
		if (*s == '-') {
			s++;
			if (!parse_number(&s, max, &hi) || hi < lo) {
				return false;
			}
		}
		if (*s && *s != ',') {
			return false;
		}
		if (!add(ctx, lo, hi)) {
			return false;
		}
	} while (*s++ == ',');
	return true;
}

static bool add_cpus(void *ctx, uint64_t lo, uint64_t hi)
{
	struct timeline_opts *o = ctx;

	for (uint64_t c = lo; c <= hi; c++) {
		o->cpus |= 1u << c;
	}
	return true;
}

static bool add_pids(void *ctx, uint64_t lo, uint64_t hi)
{
	struct timeline_opts *o = ctx;

	if (hi - lo >= TIMELINE_PIDS_MAX - o->npids) {
		return false;
	}
	for (uint64_t p = lo; p <= hi; p++) {
		o->pids[o->npids++] = (uint32_t)p;
	}
	return true;
}

enum { OPT_SINCE = 1, OPT_UNTIL, OPT_CPU, OPT_PID, OPT_WIDTH };

/* Takes the value of option opt; false if it is not one. */
static bool option_value(struct timeline_opts *o, int opt, const char *arg)
{
	uint64_t width;

	switch (opt) {
	case OPT_SINCE:
		return parse_time(arg, &o->since);
	case OPT_UNTIL:
		return parse_time(arg, &o->until);
	case OPT_CPU:
		o->cpus = 0;
		return parse_list(arg, TTRACE_MAX_CPUS - 1, add_cpus, o);
	case OPT_PID:
		o->npids = 0;
		return parse_list(arg, UINT32_MAX, add_pids, o);
	case OPT_WIDTH:
		if (!parse_number(&arg, TIMELINE_WIDTH_MAX, &width) || *arg ||
		    width < TIMELINE_WIDTH_MIN) {
			return false;
		}
		o->width = (uint32_t)width;
		return true;
	default:
		return false;
	}
}

/* What option opt takes, for a refusal. */
static const char *const expects[] = {
    [OPT_SINCE] = "seconds since boot, or +seconds after the first event, a unit "
		  "(s, ms, us, ns) optional",
    [OPT_UNTIL] = "seconds since boot, or +seconds after the first event, a unit "
		  "(s, ms, us, ns) optional",
    [OPT_CPU] = "CPU numbers below 8 and ranges: 0,2-3",
    [OPT_PID] = "process ids and ranges, at most 64 of them: 3,5-7",
    [OPT_WIDTH] = "a width in pixels from 100 to 100000",
};
_Static_assert(TTRACE_MAX_CPUS == 8 && TIMELINE_PIDS_MAX == 64 && TIMELINE_WIDTH_MIN == 100 &&
		   TIMELINE_WIDTH_MAX == 100000,
	       "the refusals above name these limits");

int timeline_opts_parse(struct timeline_opts *o, int argc, char **argv, char *why, size_t size)
{
	static const struct option longopts[] = {
	    {"since", required_argument, NULL, OPT_SINCE},
	    {"until", required_argument, NULL, OPT_UNTIL},
	    {"cpu", required_argument, NULL, OPT_CPU},
	    {"pid", required_argument, NULL, OPT_PID},
	    {"width", required_argument, NULL, OPT_WIDTH},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	timeline_opts_init(o);
	opterr = 0;
	optind = 1;
	/* A leading ':' makes a missing value ':' rather than '?'. */
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const char *name = argv[optind - 1];
		if (opt == '?') {
			snprintf(why, size, "unknown option %s", name);
			return -1;
		}
		if (opt == ':') {
			snprintf(why, size, "%s needs a value", name);
			return -1;
		}
		if (!option_value(o, opt, optarg)) {
			snprintf(why, size, "--%s %s: not %s", longopts[opt - 1].name, optarg,
				 expects[opt]);
			return -1;
		}
	}
	/* getopt_long moved the operands after the options: bring them next to argv[0]. */
	int n = argc - optind;
	memmove(argv + 1, argv + optind, (size_t)n * sizeof(*argv));
	return n + 1;
}

static uint64_t edge(const struct timeline_edge *e, uint64_t first, uint64_t dflt)
{
	if (!e->set) {
		return dflt;
	}
	return e->rel ? first + e->ns : e->ns;
}

void timeline_opts_window(const struct timeline_opts *o, const struct tview *v, uint64_t *since,
			  uint64_t *until)
{
	uint64_t first = tview_ns(v, v->file->first_ts);
	uint64_t last = tview_ns(v, v->file->last_ts);

	*since = edge(&o->since, first, first);
	*until = edge(&o->until, first, last);
}

bool timeline_opts_pid(const struct timeline_opts *o, uint32_t pid)
{
	for (size_t i = 0; i < o->npids; i++) {
		if (o->pids[i] == pid) {
			return true;
		}
	}
	return !o->npids;
}

bool timeline_opts_cpu(const struct timeline_opts *o, uint32_t cpu)
{
	return !o->cpus || (o->cpus & (1u << cpu));
}

/* The requested processes not found in the trace yet: bit i for o->pids[i]. */
struct pid_search {
	const struct timeline_opts *o;
	uint64_t missing;
};

/* tview_each()'s callback: pid wrote events. */
static void seen_pid(void *ctx, uint32_t pid)
{
	struct pid_search *s = ctx;

	for (size_t i = 0; i < s->o->npids; i++) {
		if (s->o->pids[i] == pid) {
			s->missing &= ~(1ull << i);
		}
	}
}

int timeline_opts_check(const struct timeline_opts *o, struct tview *v, char *why, size_t size)
{
	const struct tfile *f = v->file;
	struct pid_search search = {.o = o};
	uint64_t since, until;

	for (uint32_t c = f->hdr.num_cpus; c < TTRACE_MAX_CPUS; c++) {
		if (o->cpus & (1u << c)) {
			snprintf(why, size, "--cpu %u: the trace has cpus 0 to %u", c,
				 f->hdr.num_cpus - 1);
			return -EINVAL;
		}
	}
	if (!v->names_len && tview_names(v)) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->npids; i++) {
		if (!tview_proc_name(v, o->pids[i])) {
			search.missing |= 1ull << i;
		}
	}
	tview_each(v, 0, seen_pid, &search);
	for (size_t i = 0; i < o->npids; i++) {
		if (search.missing & (1ull << i)) {
			snprintf(why, size, "--pid %u: no process of that id in the trace",
				 o->pids[i]);
			return -EINVAL;
		}
	}
	if (!o->since.set && !o->until.set) {
		return 0; /* the whole trace, even one of a single instant or none */
	}
	if (!f->events) {
		snprintf(why, size, "--since and --until: the trace has no events");
		return -EINVAL;
	}
	uint64_t first = tview_ns(v, f->first_ts);
	uint64_t last = tview_ns(v, f->last_ts);
	timeline_opts_window(o, v, &since, &until);
	if (since >= until && !o->until.set) {
		snprintf(
		    why, size,
		    "--since: %.6f s since boot is not before the trace's last event, at %.6f s",
		    (double)since / NS_PER_S, (double)last / NS_PER_S);
		return -EINVAL;
	}
	if (since >= until && !o->since.set) {
		snprintf(
		    why, size,
		    "--until: %.6f s since boot is not after the trace's first event, at %.6f s",
		    (double)until / NS_PER_S, (double)first / NS_PER_S);
		return -EINVAL;
	}
	if (since >= until) {
		snprintf(why, size, "--since (%.6f s since boot) is not before --until (%.6f s)",
			 (double)since / NS_PER_S, (double)until / NS_PER_S);
		return -EINVAL;
	}
	if (until < first || since > last) {
		snprintf(why, size,
			 "the window from %.6f s to %.6f s since boot misses the trace's events, "
			 "from %.6f s to %.6f s",
			 (double)since / NS_PER_S, (double)until / NS_PER_S,
			 (double)first / NS_PER_S, (double)last / NS_PER_S);
		return -EINVAL;
	}
	return 0;
}
