/*
 * timeline: the SVG writer (see timeline.h). A first pass over the runs
 * measures each program's busy time in the window (the legend's order);
 * the second draws: runs into each lane's own buffer as they come
 * (merging those that touch), faults and IPC into per-pixel counts, and
 * losses into a buffer of marks drawn over the runs. The lanes are
 * written out at the end, each a group with its runs, strips and marks.
 */
#include "tools/spoor-trace/timeline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/runs.h"
#include "tools/spoor-trace/timeline_look.h"
#include "tools/spoor-trace/timeline_strip.h"
#include "tools/spoor-trace/xml.h"

/* Layout, in pixels. */
#define PLOT_LEFT    64
#define MARGIN_RIGHT 40
#define PLOT_TOP     72 /* the first lane's strip above it */
#define LANE_HEIGHT  28
#define STRIP_GAP    1
#define LANE_GAP     12
#define LANE_PITCH   (2 * (TSTRIP_HEIGHT + STRIP_GAP) + LANE_HEIGHT + LANE_GAP)
#define LEGEND_ROW   18
#define LEGEND_CHAR  6.8 /* at font-size 12 */
#define LABEL_CHAR   6.5 /* a character's width at font-size 11, about */
#define TITLE_MAX    (2 * TVIEW_NAME_MAX + 128)

enum run_class { RUN_IDLE, RUN_OTHER, RUN_PROG };

static const char *const run_class_names[] = {
    [RUN_IDLE] = "idle", [RUN_OTHER] = "other", [RUN_PROG] = "run"};

/* The rectangle being drawn on a lane: runs of one class (and process) that touch. */
struct tl_rect {
	bool open;
	bool threads; /* of more than one thread */
	enum run_class cls;
	uint32_t pid, tid;
	uint64_t start, end; /* ns since boot */
	double x0, x1;
};

struct tl_cpu {
	int lane;	    /* its place from the top; -1: not drawn */
	FILE *runs, *marks; /* drawn in this order; marks: the losses */
	char *runs_buf, *marks_buf;
	size_t runs_len, marks_len;
	struct tl_rect rect;
	long lost_px; /* the pixel of the loss waiting to be drawn, -1: none */
	uint64_t lost_n;
	uint64_t last; /* the latest TSC seen: times never go back */
	bool seen;     /* the CPU wrote events */
	bool switched; /* a sched_switch among them: runs.h can say who ran */
};

/* A program in the legend. */
struct tl_prog {
	uint32_t pid;
	uint64_t busy; /* ns of the window it ran */
	size_t order;  /* first seen */
};

struct tl {
	struct tview *v;
	const struct timeline_opts *o;
	FILE *out;
	uint64_t first;		     /* ns since boot of the trace's first event */
	uint64_t since, until, span; /* the window */
	uint32_t *idle;		     /* the idle threads' tids */
	size_t nidle, idle_cap;
	struct tl_prog *progs;
	size_t nprogs, progs_cap;
	uint64_t idle_busy, other_busy;
	struct tstrips strips;
	int err;
	struct tl_cpu cpu[TTRACE_MAX_CPUS];
};

/* p, or where realloc() moved it, with room for n + 1 elements of size; NULL (and t->err). */
static void *grow(struct tl *t, void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap) {
		return p;
	}
	size_t more = *cap ? 2 * *cap : 16;
	void *q = realloc(p, more * size);
	if (!q) {
		t->err = -ENOMEM;
		return NULL;
	}
	*cap = more;
	return q;
}

/* tview_each()'s callback: a thread that wrote events as pid 0 is a CPU's idle thread. */
static void note_idle(void *ctx, uint32_t tid)
{
	struct tl *t = ctx;

	if (tview_thread_pid(t->v, tid)) {
		return;
	}
	uint32_t *idle = grow(t, t->idle, t->nidle, &t->idle_cap, sizeof(*idle));
	if (idle) {
		t->idle = idle;
		t->idle[t->nidle++] = tid;
	}
}

/*
 * What a run of tid is. The kernel has no threads but the idle ones
 * (kernel/sched/thread.c), and they alone write events as pid 0; tid 0 is
 * no thread at all (boot). A thread that wrote nothing is a program's
 * whose events the save left out.
 */
static enum run_class classify(const struct tl *t, uint32_t tid, uint32_t *pid)
{
	*pid = tview_thread_pid(t->v, tid);
	if (!tid) {
		return RUN_IDLE;
	}
	for (size_t i = 0; !*pid && i < t->nidle; i++) {
		if (t->idle[i] == tid) {
			return RUN_IDLE;
		}
	}
	return timeline_opts_pid(t->o, *pid) ? RUN_PROG : RUN_OTHER;
}

/* The part of run inside the window, in ns since boot: false if none. */
static bool clip(const struct tl *t, const struct trun *run, uint64_t *s, uint64_t *e)
{
	uint64_t start = tview_ns(t->v, run->start);
	uint64_t end = tview_ns(t->v, run->end);

	*s = start > t->since ? start : t->since;
	*e = end < t->until ? end : t->until;
	return *s < *e;
}

static double xpos(const struct tl *t, uint64_t ns)
{
	return PLOT_LEFT + (double)(ns - t->since) * t->o->width / (double)t->span;
}

static struct tl_prog *prog(struct tl *t, uint32_t pid)
{
	for (size_t i = 0; i < t->nprogs; i++) {
		if (t->progs[i].pid == pid) {
			return &t->progs[i];
		}
	}
	struct tl_prog *progs = grow(t, t->progs, t->nprogs, &t->progs_cap, sizeof(*progs));
	if (!progs) {
		return NULL;
	}
	t->progs = progs;
	t->progs[t->nprogs] = (struct tl_prog){.pid = pid, .order = t->nprogs};
	return &t->progs[t->nprogs++];
}

/* Pass 1's callback: each drawn run's time, to its program, idle or the others. */
static void measure(void *ctx, const struct trun *run)
{
	struct tl *t = ctx;
	struct tl_prog *p;
	uint64_t s, e;
	uint32_t pid;

	if (t->err || t->cpu[run->cpu].lane < 0 || !clip(t, run, &s, &e)) {
		return;
	}
	switch (classify(t, run->tid, &pid)) {
	case RUN_IDLE:
		t->idle_busy += e - s;
		break;
	case RUN_OTHER:
		t->other_busy += e - s;
		break;
	case RUN_PROG:
		p = prog(t, pid);
		if (p) {
			p->busy += e - s;
		}
		break;
	}
}

static double lane_y(int lane)
{
	return PLOT_TOP + lane * LANE_PITCH + TSTRIP_HEIGHT + STRIP_GAP;
}

/* The name of process pid, or of thread tid when the process has none; NULL if neither. */
static const char *prog_name(const struct tl *t, uint32_t pid, uint32_t tid)
{
	const char *name = tview_proc_name(t->v, pid);

	return name ? name : tview_thread_name(t->v, tid);
}

/* The rectangle r's fill and title; returns its label. */
static const char *look(const struct tl *t, const struct tl_rect *r, char *fill, char *title)
{
	const char *prog = prog_name(t, r->pid, r->tid);
	const char *own = tview_thread_name(t->v, r->tid);

	if (r->cls != RUN_PROG) {
		snprintf(fill, TIMELINE_FILL_MAX, "%s",
			 r->cls == RUN_IDLE ? TIMELINE_IDLE_FILL : TIMELINE_OTHER_FILL);
		snprintf(title, TITLE_MAX, "%s", r->cls == RUN_IDLE ? "idle" : "other programs");
		return r->cls == RUN_IDLE ? "idle" : "other";
	}
	if (prog) {
		timeline_colour(prog, fill);
	} else {
		snprintf(fill, TIMELINE_FILL_MAX, TIMELINE_NONAME_FILL);
	}
	if (r->threads) {
		snprintf(title, TITLE_MAX, "%s (pid %u, several threads)", prog ? prog : "?",
			 r->pid);
	} else if (own && prog && strcmp(own, prog)) {
		snprintf(title, TITLE_MAX, "%s: %s (pid %u, tid %u)", prog, own, r->pid, r->tid);
	} else {
		snprintf(title, TITLE_MAX, "%s (pid %u, tid %u)", prog ? prog : "?", r->pid,
			 r->tid);
	}
	return prog ? prog : "?";
}

/* Draws c's open rectangle. */
static void flush(struct tl *t, struct tl_cpu *c)
{
	struct tl_rect *r = &c->rect;
	char fill[TIMELINE_FILL_MAX], title[TITLE_MAX], dur[32];
	double w = r->x1 - r->x0;
	double y = lane_y(c->lane);

	if (!r->open) {
		return;
	}
	r->open = false;
	const char *label = look(t, r, fill, title);
	timeline_duration(r->end - r->start, dur, sizeof(dur));
	fprintf(c->runs,
		"<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\"><title>",
		run_class_names[r->cls], r->x0, y, w < 0.5 ? 0.5 : w, LANE_HEIGHT, fill);
	xml_text(c->runs, title, strlen(title));
	fprintf(c->runs, ", %.6f to %.6f s since boot (%s)</title></rect>\n", r->start / 1e9,
		r->end / 1e9, dur);
	if (w >= (double)strlen(label) * LABEL_CHAR + 6) {
		fprintf(c->runs,
			"<text x=\"%.2f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			"fill=\"%s\">",
			r->x0 + w / 2, y + LANE_HEIGHT / 2 + 4,
			r->cls == RUN_PROG ? "#111" : "#555");
		xml_text(c->runs, label, strlen(label));
		fputs("</text>\n", c->runs);
	}
}

/* Pass 2's callback: a run joins the open rectangle if it touches it, else starts one. */
static void draw(void *ctx, const struct trun *run)
{
	struct tl *t = ctx;
	struct tl_cpu *c = &t->cpu[run->cpu];
	struct tl_rect *r = &c->rect;
	uint64_t s, e;
	uint32_t pid;

	if (c->lane < 0 || !clip(t, run, &s, &e)) {
		return;
	}
	enum run_class cls = classify(t, run->tid, &pid);
	double x0 = xpos(t, s);
	double x1 = xpos(t, e);
	if (r->open && r->cls == cls && (cls != RUN_PROG || r->pid == pid) && x0 - r->x1 < 0.5) {
		r->x1 = x1;
		r->end = e;
		r->threads |= r->tid != run->tid;
		return;
	}
	flush(t, c);
	*r = (struct tl_rect){.open = true,
			      .cls = cls,
			      .pid = pid,
			      .tid = run->tid,
			      .start = s,
			      .end = e,
			      .x0 = x0,
			      .x1 = x1};
}

/* Draws c's pending loss mark. */
static void flush_lost(struct tl_cpu *c)
{
	double x = PLOT_LEFT + (double)c->lost_px;
	double y = lane_y(c->lane);

	if (c->lost_px < 0) {
		return;
	}
	fprintf(c->marks,
		"<line class=\"lost\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#f80\" stroke-width=\"2\"><title>%llu events lost</title></line>\n",
		x, y - 2, x, y + LANE_HEIGHT + 2, (unsigned long long)c->lost_n);
	c->lost_px = -1;
	c->lost_n = 0;
}

/* The pixel column of ns in the window. */
static size_t column(const struct tl *t, uint64_t ns)
{
	size_t col = (size_t)((double)(ns - t->since) * t->o->width / (double)t->span);

	return col < t->o->width ? col : t->o->width - 1;
}

/* Pass 2's marks: losses where they happened, faults and IPC counted per pixel. */
static void item_marks(struct tl *t, const struct tfile_item *item)
{
	if (item->lost) {
		struct tl_cpu *c = &t->cpu[item->lost_cpu];
		/* The loss happened after the CPU's last event (before its first, if none). */
		uint64_t ns = c->last ? tview_ns(t->v, c->last) : t->first;
		if (c->lane < 0 || ns < t->since || ns > t->until) {
			return;
		}
		long px = (long)column(t, ns);
		if (px != c->lost_px) {
			flush_lost(c);
			c->lost_px = px;
		}
		c->lost_n += item->lost_count;
		return;
	}
	const struct ttrace_record *r = &item->rec;
	struct tl_cpu *c = &t->cpu[r->cpu];
	int k = tstrips_kind(r->kind);

	c->seen = true;
	c->switched |= r->kind == TTRACE_KIND_sched_switch;
	c->last = r->ts > c->last ? r->ts : c->last;
	uint64_t ns = tview_ns(t->v, c->last);
	if (c->lane < 0 || k < 0 || !timeline_opts_pid(t->o, r->pid) || ns < t->since ||
	    ns > t->until) {
		return;
	}
	tstrips_count(&t->strips, r->cpu, k, column(t, ns));
}

/* Where the legend's next cell goes: they flow left to right, in rows. */
struct flow {
	double x, y, right;
	size_t rows;
};

static void new_row(struct flow *f)
{
	f->x = 8;
	f->y += LEGEND_ROW;
	f->rows++;
}

/* A cell of the legend: a swatch (outlined, for white) and its text; out NULL: placed only. */
static void legend_cell(FILE *out, struct flow *f, const char *fill, const char *text)
{
	double w = 16 + (double)strlen(text) * LEGEND_CHAR + 18;

	if (f->x > 8 && f->x + w > f->right) {
		new_row(f);
	}
	if (out) {
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
			"stroke=\"#999\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"12\">",
			f->x, f->y, fill, f->x + 16, f->y + 10);
		xml_text(out, text, strlen(text));
		fputs("</text>\n", out);
	}
	f->x += w;
}

/* Longest busy time first; the order first seen among equals. */
static int by_busy(const void *a, const void *b)
{
	const struct tl_prog *p = a, *q = b;

	if (p->busy != q->busy) {
		return p->busy > q->busy ? -1 : 1;
	}
	return p->order < q->order ? -1 : p->order > q->order;
}

/*
 * The legend from top, right edge right: the keys, then on rows of their
 * own the programs in t->progs' order. Returns its rows; out NULL: only
 * counts them.
 */
static size_t legend(const struct tl *t, FILE *out, double top, double right)
{
	char text[TITLE_MAX], dur[32], fill[TIMELINE_FILL_MAX];
	struct flow f = {.x = 8, .y = top, .right = right, .rows = 1};

	timeline_duration(t->idle_busy, dur, sizeof(dur));
	snprintf(text, sizeof(text), "idle: %s", dur);
	legend_cell(out, &f, TIMELINE_IDLE_FILL, text);
	legend_cell(out, &f, TIMELINE_NONE_FILL, "not known");
	if (t->o->npids) {
		timeline_duration(t->other_busy, dur, sizeof(dur));
		snprintf(text, sizeof(text), "other programs: %s", dur);
		legend_cell(out, &f, TIMELINE_OTHER_FILL, text);
	}
	for (int k = 0; k < TSTRIP_KINDS; k++) {
		const char *strip_fill = tstrips_legend(&t->strips, k, text, sizeof(text));
		legend_cell(out, &f, strip_fill, text);
	}
	legend_cell(out, &f, "#f80", "events lost");
	for (size_t p = 0; p < t->nprogs; p++) {
		const char *name = tview_proc_name(t->v, t->progs[p].pid);
		if (name) {
			timeline_colour(name, fill);
		} else {
			snprintf(fill, sizeof(fill), TIMELINE_NONAME_FILL);
		}
		timeline_duration(t->progs[p].busy, dur, sizeof(dur));
		snprintf(text, sizeof(text), "%s (pid %u): %s", name ? name : "?", t->progs[p].pid,
			 dur);
		if (!p) {
			new_row(&f);
		}
		legend_cell(out, &f, fill, text);
	}
	return f.rows;
}

/* The title and the line saying what the picture shows. */
static void header(struct tl *t, size_t nlanes)
{
	const struct tfile *f = t->v->file;
	char text[TITLE_MAX + 160], dur[32];
	int len;

	len = snprintf(text, sizeof(text), "Spoor trace: %llu events on %u cpus, %llu lost",
		       (unsigned long long)f->events, f->hdr.num_cpus, (unsigned long long)f->lost);
	fputs("<title>", t->out);
	xml_text(t->out, text, strlen(text));
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	      "<text x=\"8\" y=\"18\" font-size=\"14\">",
	      t->out);
	xml_text(t->out, text, strlen(text));
	timeline_duration(t->span, dur, sizeof(dur));
	len = snprintf(text, sizeof(text),
		       "%s, from %.6f to %.6f s since boot (the axis counts from there); cpu", dur,
		       t->since / 1e9, t->until / 1e9);
	for (uint32_t c = 0, n = 0; c < f->hdr.num_cpus && (size_t)len < sizeof(text); c++) {
		if (t->cpu[c].lane >= 0) {
			len += snprintf(text + len, sizeof(text) - (size_t)len, "%s %u",
					n++	     ? ","
					: nlanes > 1 ? "s"
						     : "",
					c);
		}
	}
	for (size_t i = 0; i < t->o->npids && (size_t)len < sizeof(text); i++) {
		len += snprintf(text + len, sizeof(text) - (size_t)len, "%s%u",
				i		  ? ", "
				: t->o->npids > 1 ? "; in colour: pids "
						  : "; in colour: pid ",
				t->o->pids[i]);
	}
	fputs("</text>\n<text x=\"8\" y=\"38\" font-size=\"12\">", t->out);
	xml_text(t->out, text, strlen(text));
	fputs("</text>\n", t->out);
}

/* Lane c as a group: its frame and name, its runs, strips and losses. */
static void lane(struct tl *t, uint32_t cpu)
{
	struct tl_cpu *c = &t->cpu[cpu];
	double y = lane_y(c->lane);

	fprintf(t->out,
		"<g id=\"cpu%u\">\n<rect class=\"lane\" x=\"%d\" y=\"%.1f\" width=\"%u\" "
		"height=\"%d\" fill=\"none\" stroke=\"#bbb\" stroke-width=\"0.5\"/>"
		"<text x=\"8\" y=\"%.1f\" font-size=\"12\">cpu %u</text>\n",
		cpu, PLOT_LEFT, y, t->o->width, LANE_HEIGHT, y + LANE_HEIGHT / 2 + 4, cpu);
	/* Without a switch the events say who ran at their instants only (runs.h): none is drawn.
	 */
	if (!c->runs_len) {
		fprintf(t->out,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			"fill=\"#777\">%s</text>\n",
			PLOT_LEFT + t->o->width / 2.0, y + LANE_HEIGHT / 2 + 4,
			!c->seen ? "no events"
			: !c->switched
			    ? "who ran is not known: no sched_switch events (trace sched)"
			    : "who ran is not known here");
	}
	fwrite(c->runs_buf, 1, c->runs_len, t->out);
	for (int k = 0; k < TSTRIP_KINDS; k++) {
		double at =
		    tstrips_below(k) ? y + LANE_HEIGHT + STRIP_GAP : y - STRIP_GAP - TSTRIP_HEIGHT;
		tstrips_draw(&t->strips, t->out, cpu, k, PLOT_LEFT, at, t->since, t->span);
	}
	fwrite(c->marks_buf, 1, c->marks_len, t->out);
	fputs("</g>\n", t->out);
}

/* Opens each drawn CPU's buffers and counts; returns the lanes' count, or -1. */
static int lanes_open(struct tl *t)
{
	uint32_t drawn = 0;
	int nlanes = 0;

	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		struct tl_cpu *c = &t->cpu[i];
		c->lane =
		    i < t->v->file->hdr.num_cpus && timeline_opts_cpu(t->o, i) ? nlanes++ : -1;
		c->lost_px = -1;
		if (c->lane < 0) {
			continue;
		}
		drawn |= 1u << i;
		c->runs = open_memstream(&c->runs_buf, &c->runs_len);
		c->marks = open_memstream(&c->marks_buf, &c->marks_len);
		if (!c->runs || !c->marks) {
			return -1;
		}
	}
	return tstrips_init(&t->strips, t->o->width, drawn) ? -1 : nlanes;
}

/* Ends each lane's buffers (0, or -ENOMEM if one could not hold its text). */
static int lanes_close(struct tl *t)
{
	int err = 0;

	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		struct tl_cpu *c = &t->cpu[i];
		if (c->runs && fclose(c->runs)) {
			err = -ENOMEM;
		}
		if (c->marks && fclose(c->marks)) {
			err = -ENOMEM;
		}
		c->runs = c->marks = NULL;
	}
	return err;
}

static void lanes_free(struct tl *t)
{
	lanes_close(t);
	tstrips_free(&t->strips);
	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		free(t->cpu[i].runs_buf);
		free(t->cpu[i].marks_buf);
	}
}

static void tl_free(struct tl *t)
{
	lanes_free(t);
	free(t->idle);
	free(t->progs);
	free(t);
}

/* Feeds every item of the file to runs, and to the marks when marks is set. */
static void walk(struct tl *t, trun_fn fn, bool marks)
{
	struct tfile_iter it;
	struct tfile_item item;
	struct truns runs;

	truns_start(&runs, fn, t);
	runs.idle = true;
	runs.begin = t->v->file->first_ts;
	runs.end = t->v->file->last_ts;
	tfile_iter_start(&it, t->v->file);
	while (tfile_next(&it, &item)) {
		truns_item(&runs, &item);
		if (marks) {
			item_marks(t, &item);
		}
	}
	truns_finish(&runs);
}

int timeline_draw(struct tview *v, const struct timeline_opts *o, FILE *out)
{
	struct tl *t = calloc(1, sizeof(*t));

	if (!t || (!v->names_len && tview_names(v))) {
		free(t);
		return -ENOMEM;
	}
	t->v = v;
	t->o = o;
	t->out = out;
	t->first = tview_ns(v, v->file->first_ts);
	timeline_opts_window(o, v, &t->since, &t->until);
	t->span = t->until > t->since ? t->until - t->since : 1;
	int nlanes = lanes_open(t);
	tview_each(v, 1, note_idle, t);
	if (nlanes >= 0) {
		walk(t, measure, false);
	}
	if (nlanes < 0 || t->err) {
		tl_free(t);
		return -ENOMEM;
	}
	walk(t, draw, true);
	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		if (t->cpu[i].lane >= 0) {
			flush(t, &t->cpu[i]);
			flush_lost(&t->cpu[i]);
		}
	}
	int err = lanes_close(t);

	unsigned width = PLOT_LEFT + o->width + MARGIN_RIGHT;
	double legend_top = lane_y(nlanes) - TSTRIP_HEIGHT;
	if (t->nprogs) {
		qsort(t->progs, t->nprogs, sizeof(*t->progs), by_busy);
	}
	double height = legend_top + (double)legend(t, NULL, legend_top, width) * LEGEND_ROW + 4;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
		"viewBox=\"0 0 %u %.0f\" font-family=\"sans-serif\">\n",
		width, height, width, height);
	header(t, (size_t)nlanes);
	timeline_axis(out, t->span, PLOT_LEFT, o->width, PLOT_TOP, lane_y(nlanes) - LANE_GAP);
	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		if (t->cpu[i].lane >= 0) {
			lane(t, i);
		}
	}
	legend(t, out, legend_top, width);
	fputs("</svg>\n", out);
	if (!err && (fflush(out) || ferror(out))) {
		err = -EIO;
	}
	tl_free(t);
	return err;
}

int timeline_convert(struct tview *v, FILE *out)
{
	struct timeline_opts o;

	timeline_opts_init(&o);
	return timeline_draw(v, &o, out);
}
