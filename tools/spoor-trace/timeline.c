/*
 * timeline: the SVG writer (see timeline.h). A first pass over the runs
 * finds the threads that ran (the legend, and each one's colour); the
 * second draws lanes, runs and marks, merging what falls on one pixel.
 */
#include "tools/spoor-trace/timeline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/runs.h"

/* Layout, in pixels. */
#define PLOT_LEFT    80
#define PLOT_WIDTH   1200
#define PLOT_TOP     56
#define MARGIN_RIGHT 48
#define LANE_HEIGHT  28
#define LANE_GAP     14
#define MARK_SIZE    7
#define LEGEND_ROW   18
#define LEGEND_COLS  4
#define LEGEND_COL   ((PLOT_WIDTH + PLOT_LEFT) / LEGEND_COLS)
#define AXIS_TICKS   10

/* The golden angle: consecutive threads get hues far apart. */
#define HUE_STEP 137.508

/* A CPU's lane while pass 2 draws it. */
struct tl_cpu {
	bool pending; /* a run waiting to be merged with the next */
	uint32_t tid;
	double x0, x1;
	long pf_px, call_px, reply_px, lost_px; /* the pixel of each kind's last mark */
	uint64_t last;				/* latest TSC seen */
};

struct tl {
	struct tview *v;
	FILE *out;
	FILE *marks; /* drawn after the runs, so none hides under one */
	char *marks_buf;
	size_t marks_len;
	uint64_t t0, span; /* ns since boot: the first event, and the time drawn */
	uint32_t *tids;	   /* threads that ran, in the order they first did */
	size_t ntids, cap;
	int err;
	struct tl_cpu cpu[TTRACE_MAX_CPUS];
};

static long thread_index(const struct tl *t, uint32_t tid)
{
	for (size_t i = 0; i < t->ntids; i++) {
		if (t->tids[i] == tid) {
			return (long)i;
		}
	}
	return -1;
}

static void collect(void *ctx, const struct trun *run)
{
	struct tl *t = ctx;

	if (t->err || thread_index(t, run->tid) >= 0) {
		return;
	}
	if (t->ntids == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		uint32_t *tids = realloc(t->tids, cap * sizeof(*tids));
		if (!tids) {
			t->err = -ENOMEM;
			return;
		}
		t->tids = tids;
		t->cap = cap;
	}
	t->tids[t->ntids++] = run->tid;
}

static double xpos(const struct tl *t, uint64_t tsc)
{
	uint64_t ns = tview_ns(t->v, tsc);
	uint64_t d = ns > t->t0 ? ns - t->t0 : 0;

	return PLOT_LEFT + (double)d * PLOT_WIDTH / (double)t->span;
}

static double lane_y(uint32_t cpu)
{
	return PLOT_TOP + cpu * (LANE_HEIGHT + LANE_GAP);
}

/* The XML text of s: only printable ASCII, with the five specials escaped. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*s >= ' ' && *s <= '~' ? *s : '?', out);
			break;
		}
	}
}

static void colour(const struct tl *t, uint32_t tid, char *buf, size_t size)
{
	long i = thread_index(t, tid);
	double hue = i < 0 ? 0 : (double)i * HUE_STEP;

	hue -= 360.0 * (double)(long)(hue / 360.0);
	snprintf(buf, size, "hsl(%.0f,65%%,%d%%)", hue, i % 2 ? 45 : 60);
}

/* The name the legend and tooltips give thread tid. */
static void thread_label(const struct tl *t, uint32_t tid, char *buf, size_t size)
{
	uint32_t pid = tview_thread_pid(t->v, tid);
	const char *prog = tview_proc_name(t->v, pid);
	const char *own = tview_thread_name(t->v, tid);

	if (own && prog && strcmp(own, prog)) {
		snprintf(buf, size, "%s: %s (pid %u, tid %u)", prog, own, pid, tid);
	} else if (own || prog) {
		snprintf(buf, size, "%s (pid %u, tid %u)", own ? own : prog, pid, tid);
	} else {
		snprintf(buf, size, "%s (pid %u, tid %u)", pid ? "?" : "kernel", pid, tid);
	}
}

static void draw_run(struct tl *t, uint32_t cpu)
{
	char fill[32];
	char name[TVIEW_NAME_MAX * 2 + 48];
	double w = t->cpu[cpu].x1 - t->cpu[cpu].x0;

	colour(t, t->cpu[cpu].tid, fill, sizeof(fill));
	thread_label(t, t->cpu[cpu].tid, name, sizeof(name));
	fprintf(t->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\">",
		t->cpu[cpu].x0, lane_y(cpu), w < 0.5 ? 0.5 : w, LANE_HEIGHT, fill);
	fputs("<title>", t->out);
	xml_text(t->out, name);
	fputs("</title></rect>\n", t->out);
	t->cpu[cpu].pending = false;
}

static void draw(void *ctx, const struct trun *run)
{
	struct tl *t = ctx;
	double x0 = xpos(t, run->start);
	double x1 = xpos(t, run->end);
	struct tl_cpu *c = &t->cpu[run->cpu];

	if (c->pending && c->tid == run->tid && x0 - c->x1 < 0.5) {
		c->x1 = x1;
		return;
	}
	if (c->pending) {
		draw_run(t, run->cpu);
	}
	c->pending = true;
	c->tid = run->tid;
	c->x0 = x0;
	c->x1 = x1;
}

/* A mark at x on cpu's lane, unless one of its kind is on that pixel already. */
static void mark(struct tl *t, uint32_t cpu, double x, long *last_px, const char *shape,
		 const char *fill, const char *title)
{
	long px = (long)x;
	double y = lane_y(cpu);

	if (px == *last_px) {
		return;
	}
	*last_px = px;
	if (!strcmp(shape, "across")) {
		fprintf(t->marks,
			"<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\">",
			x, y - 2, x, y + LANE_HEIGHT + 2, fill);
	} else {
		/* A triangle pointing at the lane, from above or from below. */
		bool above = !strcmp(shape, "above");
		double tip = above ? y - 1 : y + LANE_HEIGHT + 1;
		double base = above ? tip - MARK_SIZE : tip + MARK_SIZE;
		fprintf(t->marks, "<path d=\"M%.2f %.1f L%.2f %.1f L%.2f %.1f z\" fill=\"%s\">",
			x - MARK_SIZE / 2.0, base, x + MARK_SIZE / 2.0, base, x, tip, fill);
	}
	fputs("<title>", t->marks);
	xml_text(t->marks, title);
	fprintf(t->marks, "</title></%s>\n", strcmp(shape, "across") ? "path" : "line");
}

static void item_marks(struct tl *t, const struct tfile_item *item)
{
	char title[TVIEW_NAME_MAX * 2 + 64];

	if (item->lost) {
		uint32_t cpu = item->lost_cpu;
		snprintf(title, sizeof(title), "lost %llu events on cpu %u",
			 (unsigned long long)item->lost_count, cpu);
		mark(t, cpu, xpos(t, t->cpu[cpu].last), &t->cpu[cpu].lost_px, "across", "#f80",
		     title);
		return;
	}
	const struct ttrace_record *r = &item->rec;
	struct tl_cpu *c = &t->cpu[r->cpu];
	uint64_t ts = r->ts > c->last ? r->ts : c->last;
	double x = xpos(t, ts);

	c->last = ts;
	switch (r->kind) {
	case TTRACE_KIND_mem_pf:
		snprintf(title, sizeof(title), "page fault at 0x%llx, tid %u",
			 (unsigned long long)r->data[0], r->tid);
		mark(t, r->cpu, x, &c->pf_px, "above", "#d00", title);
		break;
	case TTRACE_KIND_ipc_call:
		snprintf(title, sizeof(title), "ipc call on endpoint %llu, tid %u",
			 (unsigned long long)r->data[0], r->tid);
		mark(t, r->cpu, x, &c->call_px, "below", "#15c", title);
		break;
	case TTRACE_KIND_ipc_reply:
		snprintf(title, sizeof(title), "ipc reply to tid %llu, tid %u",
			 (unsigned long long)r->data[2], r->tid);
		mark(t, r->cpu, x, &c->reply_px, "below", "#1a4", title);
		break;
	default:
		break;
	}
}

/* A round step for about AXIS_TICKS ticks over span ns: 1, 2 or 5 times a power of ten. */
static uint64_t tick_step(uint64_t span)
{
	uint64_t step = 1;

	for (;;) {
		static const uint64_t mult[] = {1, 2, 5};
		for (size_t i = 0; i < 3; i++) {
			if (span / (step * mult[i]) <= AXIS_TICKS) {
				return step * mult[i];
			}
		}
		if (step > UINT64_MAX / 10 / 5) {
			return step * 10;
		}
		step *= 10;
	}
}

static void axis(struct tl *t, double bottom)
{
	uint64_t step = tick_step(t->span);
	uint64_t first = (t->t0 + step - 1) / step * step;

	for (uint64_t ns = first; ns - t->t0 <= t->span && ns >= first; ns += step) {
		double x = PLOT_LEFT + (double)(ns - t->t0) * PLOT_WIDTH / (double)t->span;
		fprintf(t->out,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n"
			"<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.6f "
			"s</text>\n",
			x, PLOT_TOP - 14, x, bottom, x, PLOT_TOP - 18, (double)ns / 1e9);
		if (step > UINT64_MAX - ns) {
			break;
		}
	}
}

static void legend(struct tl *t, double top)
{
	char fill[32];
	char name[TVIEW_NAME_MAX * 2 + 48];

	for (size_t i = 0; i < t->ntids; i++) {
		double x = 8 + (double)(i % LEGEND_COLS) * LEGEND_COL;
		double y = top + (double)(i / LEGEND_COLS) * LEGEND_ROW;
		colour(t, t->tids[i], fill, sizeof(fill));
		thread_label(t, t->tids[i], name, sizeof(name));
		fprintf(t->out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">",
			x, y, fill, x + 16, y + 10);
		xml_text(t->out, name);
		fputs("</text>\n", t->out);
	}
}

int timeline_convert(struct tview *v, FILE *out)
{
	struct tl *t = calloc(1, sizeof(*t));
	const struct tfile *f = v->file;
	uint32_t ncpus = f->hdr.num_cpus;
	struct tfile_iter it;
	struct tfile_item item;
	struct truns runs;
	char title[160];

	if (!t || (!v->names_len && tview_names(v))) {
		free(t);
		return -ENOMEM;
	}
	t->v = v;
	t->out = out;
	t->t0 = tview_ns(v, f->first_ts);
	t->span = tview_ns(v, f->last_ts) - t->t0;
	t->span = t->span ? t->span : 1;
	truns_start(&runs, collect, t);
	tfile_iter_start(&it, f);
	while (tfile_next(&it, &item)) {
		truns_item(&runs, &item);
	}
	truns_finish(&runs);

	double lanes_bottom = lane_y(ncpus) - LANE_GAP;
	double legend_top = lanes_bottom + 3 * MARK_SIZE + 16;
	double height =
	    legend_top + (double)((t->ntids + LEGEND_COLS - 1) / LEGEND_COLS) * LEGEND_ROW + 12;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n",
		PLOT_LEFT + PLOT_WIDTH + MARGIN_RIGHT, height,
		PLOT_LEFT + PLOT_WIDTH + MARGIN_RIGHT, height);
	snprintf(title, sizeof(title), "Spoor trace: %llu events on %u cpus, %llu lost",
		 (unsigned long long)f->events, ncpus, (unsigned long long)f->lost);
	fputs("<title>", out);
	xml_text(out, title);
	fprintf(out, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		     "<text x=\"8\" y=\"18\" font-size=\"14\">");
	xml_text(out, title);
	fprintf(out,
		"</text>\n<text x=\"%d\" y=\"18\" font-size=\"12\" text-anchor=\"end\">"
		"<tspan fill=\"#d00\">&#9660;</tspan> page fault  "
		"<tspan fill=\"#15c\">&#9650;</tspan> IPC call  "
		"<tspan fill=\"#1a4\">&#9650;</tspan> IPC reply  "
		"<tspan fill=\"#f80\">|</tspan> events lost</text>\n",
		PLOT_LEFT + PLOT_WIDTH);
	axis(t, lanes_bottom);
	for (uint32_t c = 0; c < ncpus; c++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>"
			"<text x=\"8\" y=\"%.1f\" font-size=\"12\">cpu %u</text>\n",
			PLOT_LEFT, lane_y(c), PLOT_WIDTH, LANE_HEIGHT,
			lane_y(c) + LANE_HEIGHT / 2 + 4, c);
		t->cpu[c].pf_px = t->cpu[c].call_px = t->cpu[c].reply_px = t->cpu[c].lost_px = -1;
	}
	t->marks = open_memstream(&t->marks_buf, &t->marks_len);
	if (!t->marks) {
		free(t->tids);
		free(t);
		return -ENOMEM;
	}
	truns_start(&runs, draw, t);
	tfile_iter_start(&it, f);
	while (tfile_next(&it, &item)) {
		truns_item(&runs, &item);
		item_marks(t, &item);
	}
	truns_finish(&runs);
	for (uint32_t c = 0; c < ncpus; c++) {
		if (t->cpu[c].pending) {
			draw_run(t, c);
		}
	}
	if (fclose(t->marks)) {
		t->err = -ENOMEM;
	} else {
		fwrite(t->marks_buf, 1, t->marks_len, out);
	}
	free(t->marks_buf);
	legend(t, legend_top);
	fputs("</svg>\n", out);
	int err = t->err;
	if (!err && (fflush(out) || ferror(out))) {
		err = -EIO;
	}
	free(t->tids);
	free(t);
	return err;
}
