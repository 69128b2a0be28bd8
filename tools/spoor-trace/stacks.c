/*
 * stacks: see stacks.h. Names come from the decoder's symbolize hook's
 * symbolizer (symbols.c) when main set one, the function's name alone:
 * the answers count functions, not lines.
 */
#include "tools/spoor-trace/stacks.h"

#include <stdio.h>
#include <string.h>

#include "common/trace_stack.h"
#include "tools/spoor-trace/symbols.h"

/* The frame's function, or its hex address. */
static void frame_name(struct tview *v, const struct ttrace_frame *f, char *buf)
{
	struct symbol sym;

	if (v->dec.symbolize_ctx && symbols_lookup(v->dec.symbolize_ctx, f, &sym)) {
		snprintf(buf, STACKS_NAME_MAX, "%s%s", sym.function, f->kernel ? "_[k]" : "");
	} else {
		snprintf(buf, STACKS_NAME_MAX, "0x%llx%s", (unsigned long long)f->addr,
			 f->kernel ? "_[k]" : "");
	}
}

static void push(struct stack_names *s, const char *name, const char *module)
{
	snprintf(s->name[s->n], STACKS_NAME_MAX, "%s", name);
	snprintf(s->module[s->n], TTRACE_COMM_MAX, "%s", module);
	s->n++;
}

/* rec's stack as names, root first. */
static void names_of(struct tview *v, const struct ttrace_record *rec,
		     const struct ttrace_stack *st, struct stack_names *s)
{
	const char *comm = ttrace_decoder_comm(&v->dec, rec->pid);
	bool sample = rec->kind == TTRACE_KIND_prof_sample;
	char name[STACKS_NAME_MAX];

	s->n = 0;
	push(s, rec->pid ? comm : "kernel", rec->pid ? comm : "kernel");
	for (uint32_t i = st->nuser; i-- > 0;) {
		struct ttrace_frame f = {st->frames[st->nkernel + i], comm, false, i > 0};
		frame_name(v, &f, name);
		push(s, name, comm);
	}
	for (uint32_t i = st->nkernel; i-- > 0;) {
		struct ttrace_frame f = {st->frames[i], "kernel", true, !(sample && !i)};
		frame_name(v, &f, name);
		push(s, name, "kernel");
	}
}

bool stacks_of(struct tview *v, const struct ttrace_record *rec, struct stack_names *s)
{
	struct ttrace_stack st;

	if (rec->kind == TTRACE_KIND_prof_sample && rec->data[1] == TTRACE_PROF_IDLE) {
		s->n = 0;
		push(s, "idle", "idle");
		return true;
	}
	if (!ttrace_stack_get(rec, &st)) {
		return false;
	}
	names_of(v, rec, &st, s);
	return true;
}

/* Whether the trace holds a prof_sample. */
static bool has_samples(struct tview *v)
{
	struct tfile_iter it;
	struct tfile_item item;

	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		if (!item.lost && item.rec.kind == TTRACE_KIND_prof_sample) {
			return true;
		}
	}
	return false;
}

long stacks_each(struct tview *v, uint32_t flags, uint16_t *kind, struct stacks_seen *seen,
		 int (*fn)(void *ctx, const struct stack_names *s), void *ctx)
{
	static struct stack_names s;
	struct tfile_iter it;
	struct tfile_item item;
	long n = 0;

	memset(seen, 0, sizeof(*seen));
	*kind = has_samples(v) ? TTRACE_KIND_prof_sample : 0;
	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		const struct ttrace_record *rec = &item.rec;

		if (item.lost || (*kind && rec->kind != *kind)) {
			continue;
		}
		bool idle = *kind && rec->data[1] == TTRACE_PROF_IDLE;
		if (*kind) {
			seen->first_ts = seen->samples++ ? seen->first_ts : rec->ts;
			seen->last_ts = rec->ts;
			seen->idle += idle;
			seen->cpus |= 1u << rec->cpu;
		}
		if ((idle && !(flags & STACKS_IDLE)) || !stacks_of(v, rec, &s)) {
			continue;
		}
		int err = fn(ctx, &s);
		if (err) {
			return -err;
		}
		n++;
	}
	return n;
}

void stacks_rate(const struct tview *v, const struct stacks_seen *seen, uint32_t flags, char *buf,
		 size_t size)
{
	int cpus = __builtin_popcount(seen->cpus);
	uint64_t ns = tview_ns(v, seen->last_ts) - tview_ns(v, seen->first_ts);
	size_t len;

	buf[0] = '\0';
	if (!seen->samples) {
		return;
	}
	len = (size_t)snprintf(buf, size, "%ld samples on %d cpu%s", seen->samples, cpus,
			       cpus == 1 ? "" : "s");
	/*
	 * A rate needs two samples at least: one instant has none. Each CPU's
	 * first sample starts the span rather than fills an interval of it.
	 */
	if (ns && len < size) {
		double s = (double)ns / 1e9;
		len += (size_t)snprintf(buf + len, size - len, " in %.6f s: %.0f Hz a cpu", s,
					(double)(seen->samples - cpus) / cpus / s);
	}
	if (seen->idle && len < size) {
		snprintf(buf + len, size - len,
			 flags & STACKS_IDLE ? "; %ld idle counted"
					     : "; %ld idle left out (--idle shows them)",
			 seen->idle);
	}
}
