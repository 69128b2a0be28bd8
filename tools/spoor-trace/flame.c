/*
 * flame: see flame.h. Both outputs come from the sorted folded stacks: in
 * that order a frame's stacks are neighbours, so one pass draws each box
 * when the stacks stop sharing it (as flamegraph.pl does).
 */
#include "tools/spoor-trace/flame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "tools/spoor-trace/graph.h"
#include "tools/spoor-trace/stacks.h"
#include "tools/spoor-trace/tally.h"
#include "tools/spoor-trace/xml.h"

#define FOLDED_MAX (STACKS_FRAMES_MAX * (STACKS_NAME_MAX + 1))
#define SVG_WIDTH  1200
#define ROW	   16 /* px a frame */
#define PAD	   10
#define CHAR_PX	   7 /* of the 12 px font: names shorter than their box are written */

static int fold(void *ctx, const struct stack_names *s)
{
	char line[FOLDED_MAX];
	size_t len = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", i ? ";" : "",
					s->name[i]);
	}
	return tally_add(ctx, line, 0, 1) < 0 ? ENOMEM : 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct tally_row *)a)->key, ((const struct tally_row *)b)->key);
}

/* The trace's folded stacks, sorted; *total their count, *seen what the samples were. */
static int folded(struct tview *v, uint32_t flags, struct tally *t, long *total,
		  struct stacks_seen *seen)
{
	uint16_t kind;

	*total =
	    flags & FLAME_GRAPH ? graph_fold(v, t) : stacks_each(v, flags, &kind, seen, fold, t);
	if (*total <= 0) {
		tally_free(t);
		return *total ? (int)*total : -ENOENT;
	}
	qsort(t->rows, t->len, sizeof(*t->rows), by_key);
	return 0;
}

int flame_folded(struct tview *v, uint32_t flags, FILE *out)
{
	struct stacks_seen seen;
	struct tally t = {0};
	long total;
	int err = folded(v, flags, &t, &total, &seen);

	if (err) {
		return err;
	}
	for (size_t i = 0; i < t.len; i++) {
		fprintf(out, "%s %llu\n", t.rows[i].key, (unsigned long long)t.rows[i].count[0]);
	}
	tally_free(&t);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* Frame d of a folded line (its start and length), or false past its last. */
static bool frame_at(const char *key, uint32_t d, const char **start, size_t *len)
{
	for (uint32_t i = 0; i < d; i++) {
		key = strchr(key, ';');
		if (!key) {
			return false;
		}
		key++;
	}
	const char *end = strchr(key, ';');
	*start = key;
	*len = end ? (size_t)(end - key) : strlen(key);
	return true;
}

/* One box: frame name at depth d, from stack x0 (in counts) for n stacks. */
static void box(FILE *out, const char *name, size_t len, uint32_t d, uint64_t x0, uint64_t n,
		long total, uint32_t depth)
{
	double scale = (double)(SVG_WIDTH - 2 * PAD) / (double)total;
	double x = PAD + (double)x0 * scale, w = (double)n * scale;
	int y = PAD + (int)(depth - d - 1) * ROW + 2 * ROW; /* below the title and the rate */
	bool kernel = len > 4 && !memcmp(name + len - 4, "_[k]", 4);
	uint64_t h = ttrace_fnv1a(TTRACE_FNV_OFFSET, name, len);

	/* warm colours as FlameGraph's; the kernel's orange, as its --colors=perf does */
	unsigned red = 205 + (unsigned)(h % 50), green = kernel ? 140 : (unsigned)(h >> 8) % 190;
	fprintf(out, "<g><title>");
	xml_text(out, name, len);
	fprintf(out,
		" (%llu stacks, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		(unsigned long long)n, 100.0 * (double)n / (double)total, x, y, w, ROW - 1, red,
		green, 55u);
	if (w > 3 * CHAR_PX) {
		size_t fit = (size_t)(w / CHAR_PX) - 1;
		fprintf(out, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + ROW - 4);
		xml_text(out, name, len < fit ? len : fit);
		fprintf(out, "%s</text>", len <= fit ? "" : "..");
	}
	fprintf(out, "</g>\n");
}

int flame_svg(struct tview *v, uint32_t flags, FILE *out)
{
	struct stacks_seen seen;
	struct tally t = {0};
	char rate[160];
	long total;
	int err = folded(v, flags, &t, &total, &seen);
	uint32_t depth = 1;

	if (err) {
		return err;
	}
	for (size_t i = 0; i < t.len; i++) {
		uint32_t n = 1;
		for (const char *p = t.rows[i].key; (p = strchr(p, ';')); p++) {
			n++;
		}
		depth = n > depth ? n : depth;
	}
	int height = 2 * PAD + (int)(depth + 2) * ROW;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		"<text x=\"%d\" y=\"%d\">Flame graph: %ld %s</text>\n",
		SVG_WIDTH, height, SVG_WIDTH, height, PAD, PAD + 2, total,
		flags & FLAME_GRAPH ? "ns of the function graph's calls" : "stacks");
	if (flags & FLAME_GRAPH) {
		snprintf(rate, sizeof(rate), "each call's box as wide as the time it ran");
	} else {
		stacks_rate(v, &seen, flags, rate, sizeof(rate));
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\">", PAD, PAD + 2 + ROW);
	xml_text(out, rate, strlen(rate));
	fprintf(out, "</text>\n");
	/* For each depth, the frame open there: where it started (in stacks). */
	for (uint32_t d = 0; d < depth; d++) {
		uint64_t x = 0, start = 0;
		const char *open = NULL;
		size_t open_len = 0;

		for (size_t i = 0; i <= t.len; i++) {
			const char *name = NULL;
			size_t len = 0;
			bool has = i < t.len && frame_at(t.rows[i].key, d, &name, &len);
			/* a frame continues while the stacks share it and everything below it */
			bool same = has && open && i > 0 && len == open_len &&
				    !memcmp(name, open, len) &&
				    (d == 0 || !strncmp(t.rows[i].key, t.rows[i - 1].key,
							(size_t)(name - t.rows[i].key)));
			if (open && !same) {
				box(out, open, open_len, d, start, x - start, total, depth);
				open = NULL;
			}
			if (has && !open) {
				open = name;
				open_len = len;
				start = x;
			}
			x += i < t.len ? t.rows[i].count[0] : 0;
		}
	}
	fprintf(out, "</svg>\n");
	tally_free(&t);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
