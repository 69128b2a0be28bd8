/*
 * report: see report.h. A function counts once in a stack's total however
 * often it recurs in it.
 */
#include "tools/spoor-trace/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_names.h"
#include "tools/spoor-trace/stacks.h"
#include "tools/spoor-trace/tally.h"

#define KEY_MAX (TTRACE_COMM_MAX + STACKS_NAME_MAX + 2)
#define SELF	0
#define TOTAL	1

struct counts {
	struct tally functions; /* "module\tfunction": self, total */
	struct tally modules;	/* module: self */
};

static int count(void *ctx, const struct stack_names *s)
{
	struct counts *c = ctx;
	char keys[STACKS_FRAMES_MAX][KEY_MAX];
	/* the program's own name (frame 0) is no function, but for idle it is all there is */
	uint32_t first = s->n > 1 ? 1 : 0;
	bool err = tally_add(&c->modules, s->module[s->n - 1], SELF, 1) < 0;

	for (uint32_t i = first; i < s->n && !err; i++) {
		bool seen = false;

		snprintf(keys[i], KEY_MAX, "%s\t%s", s->module[i], s->name[i]);
		for (uint32_t j = first; j < i; j++) {
			seen = seen || !strcmp(keys[j], keys[i]);
		}
		if (!seen) {
			err = tally_add(&c->functions, keys[i], TOTAL, 1) < 0;
		}
	}
	return err || tally_add(&c->functions, keys[s->n - 1], SELF, 1) < 0 ? ENOMEM : 0;
}

/* Highest self first, then highest total, then by name: the same trace gives the same text. */
static int by_self(const void *a, const void *b)
{
	const struct tally_row *x = a, *y = b;

	if (x->count[SELF] != y->count[SELF]) {
		return x->count[SELF] < y->count[SELF] ? 1 : -1;
	}
	if (x->count[TOTAL] != y->count[TOTAL]) {
		return x->count[TOTAL] < y->count[TOTAL] ? 1 : -1;
	}
	return strcmp(x->key, y->key);
}

static double share(uint64_t part, long all)
{
	return all ? 100.0 * (double)part / (double)all : 0;
}

int report_write(struct tview *v, uint32_t flags, FILE *out)
{
	struct counts c = {0};
	struct stacks_seen seen;
	char rate[160];
	uint16_t kind;
	long n = stacks_each(v, flags, &kind, &seen, count, &c);

	if (n <= 0) {
		tally_free(&c.functions);
		tally_free(&c.modules);
		return n ? (int)n : -ENOENT;
	}
	qsort(c.modules.rows, c.modules.len, sizeof(*c.modules.rows), by_self);
	qsort(c.functions.rows, c.functions.len, sizeof(*c.functions.rows), by_self);
	stacks_rate(v, &seen, flags, rate, sizeof(rate));
	fprintf(out, "# %ld stacks (%s)\n", n,
		kind ? ttrace_kind_info(kind)->name : "every event with a stack");
	if (*rate) {
		/*
		 * The profiler samples from the timer's interrupt, which waits
		 * while interrupts are masked (README, Known limits).
		 */
		fprintf(out,
			"# %s\n# the timer interrupt samples: one due while interrupts were "
			"masked lands on the first\n# instruction after they are unmasked\n",
			rate);
	}
	fprintf(out, "# modules:");
	for (size_t i = 0; i < c.modules.len; i++) {
		fprintf(out, " %s %.1f%% (%llu)", c.modules.rows[i].key,
			share(c.modules.rows[i].count[SELF], n),
			(unsigned long long)c.modules.rows[i].count[SELF]);
	}
	fprintf(out, "\n#\n#   self   total     self    total  module           function\n");
	for (size_t i = 0; i < c.functions.len; i++) {
		const struct tally_row *r = &c.functions.rows[i];
		const char *tab = strchr(r->key, '\t');

		fprintf(out, "%6.2f%% %6.2f%% %8llu %8llu  %-16.*s %s\n", share(r->count[SELF], n),
			share(r->count[TOTAL], n), (unsigned long long)r->count[SELF],
			(unsigned long long)r->count[TOTAL], (int)(tab - r->key), r->key, tab + 1);
	}
	tally_free(&c.functions);
	tally_free(&c.modules);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
