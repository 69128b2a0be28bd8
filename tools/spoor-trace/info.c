/*
 * info: a saved trace's summary (see info.h). One walk of the events
 * counts kinds and programs; the rest is the file's header and ledger.
 */
#include "tools/spoor-trace/info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_filter.h"
#include "common/trace_names.h"

#define NS_PER_MS     1000000ull
#define SELECTION_MAX 4096 /* every kind's name and a predicate: one line */
#define NS_PER_US     1000ull

/* A program's events: a pid and its count. */
struct prog {
	uint32_t pid;
	uint64_t events;
};

struct progs {
	struct prog *p;
	size_t len, cap;
};

static int count_pid(struct progs *ps, uint32_t pid)
{
	for (size_t i = 0; i < ps->len; i++) {
		if (ps->p[i].pid == pid) {
			ps->p[i].events++;
			return 0;
		}
	}
	if (ps->len == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 32;
		struct prog *more = realloc(ps->p, cap * sizeof(*more));
		if (!more) {
			return -ENOMEM;
		}
		ps->p = more;
		ps->cap = cap;
	}
	ps->p[ps->len++] = (struct prog){pid, 1};
	return 0;
}

static int busiest_first(const void *a, const void *b)
{
	const struct prog *x = a, *y = b;

	return x->events != y->events ? (x->events < y->events ? 1 : -1)
				      : (x->pid > y->pid) - (x->pid < y->pid);
}

/* ns since boot as seconds with six decimals, as the dump's times. */
static void seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%06llu", (unsigned long long)(ns / (NS_PER_MS * 1000)),
		(unsigned long long)(ns % (NS_PER_MS * 1000) / NS_PER_US));
}

/*
 * What the save selected: its filter's words and its predicate (A SAVE'S
 * PREDICATE), as `trace save` took them, so a reader knows the events
 * they left out are missing on purpose. The predicate's bytes outside
 * printable ASCII (a quoted string may hold any) show as '?'.
 */
static void selection(const struct tfile *f, FILE *out)
{
	char pred[sizeof(f->pred)];
	char words[SELECTION_MAX];

	for (size_t i = 0; i < sizeof(pred); i++) {
		char c = f->pred[i];
		pred[i] = c && (c < ' ' || c > '~') ? '?' : c;
	}
	ttrace_filter_words(&f->hdr.filter, pred, words, sizeof(words));
	fprintf(out, "selection: %s\n", words[0] ? words : "every event");
}

static void machine(struct tview *v, FILE *out)
{
	const struct tfile *f = v->file;

	fprintf(out, "cpus: %u   tsc: %llu Hz   saved at ", f->hdr.num_cpus,
		(unsigned long long)f->hdr.tsc_hz);
	seconds(out, f->hdr.saved_ns);
	fprintf(out, " s   categories:");
	for (uint32_t bit = 0; ttrace_category_name(bit); bit++) {
		if (f->hdr.mask >> bit & 1) {
			fprintf(out, " %s", ttrace_category_name(bit));
		}
	}
	fprintf(out, "%s\n", f->hdr.mask ? "" : " none");
	fprintf(out, "events: %llu, %llu lost", (unsigned long long)f->events,
		(unsigned long long)f->lost);
	if (f->events) {
		uint64_t a = tview_ns(v, f->first_ts), b = tview_ns(v, f->last_ts);
		fprintf(out, ", from ");
		seconds(out, a);
		fprintf(out, " to ");
		seconds(out, b);
		fprintf(out, " s (%llu.%03llu ms)", (unsigned long long)((b - a) / NS_PER_MS),
			(unsigned long long)((b - a) % NS_PER_MS / NS_PER_US));
	}
	fprintf(out, "\n");
	selection(f, out);
	if (f->ends_early) {
		fprintf(out, "# %s\n", f->note);
	}
}

/* Each CPU's ledger; a recording that ends early has none yet. */
static void ledger(const struct tfile *f, FILE *out)
{
	fprintf(out, "# %-4s %10s %10s %12s %10s %10s %10s %10s\n", "cpu", "events", "emitted",
		"stored", "overwritten", "dropped", "cleared", "lost");
	for (uint32_t c = 0; c < f->hdr.num_cpus; c++) {
		const struct ttrace_file_ledger *l = &f->ledger[c];
		fprintf(out, "  %-4u %10llu %10llu %12llu %10llu %10llu %10llu %10llu\n", c,
			(unsigned long long)f->cpu_events[c], (unsigned long long)l->emitted,
			(unsigned long long)l->stored, (unsigned long long)l->overwritten,
			(unsigned long long)l->dropped, (unsigned long long)l->cleared,
			(unsigned long long)f->cpu_lost[c]);
	}
}

int info_write(struct tview *v, FILE *out)
{
	uint64_t kinds[TTRACE_KIND_LIMIT] = {0}, unknown = 0;
	struct progs ps = {0};
	struct tfile_iter it;
	struct tfile_item item;
	int err = tview_names(v);

	tfile_iter_start(&it, v->file);
	while (!err && tfile_next(&it, &item)) {
		if (!item.lost) {
			uint32_t k = item.rec.kind;
			*(k < TTRACE_KIND_LIMIT && ttrace_kind_info(k) ? &kinds[k] : &unknown) += 1;
			err = count_pid(&ps, item.rec.pid);
		}
	}
	if (err) {
		free(ps.p);
		return err;
	}
	machine(v, out);
	ledger(v->file, out);
	fprintf(out, "# %-22s %10s\n", "kind", "count");
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		if (kinds[k]) {
			fprintf(out, "  %-22s %10llu\n", ttrace_kind_info(k)->name,
				(unsigned long long)kinds[k]);
		}
	}
	if (unknown) {
		fprintf(out, "  %-22s %10llu\n", "(unknown kinds)", (unsigned long long)unknown);
	}
	qsort(ps.p, ps.len, sizeof(*ps.p), busiest_first);
	fprintf(out, "# %-22s %8s %10s\n", "program", "pid", "events");
	for (size_t i = 0; i < ps.len; i++) {
		const char *name = ps.p[i].pid ? tview_proc_name(v, ps.p[i].pid) : "kernel";
		fprintf(out, "  %-22s %8u %10llu\n", name ? name : "?", ps.p[i].pid,
			(unsigned long long)ps.p[i].events);
	}
	free(ps.p);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
