/*
 * timeline_strip: counting and drawing the density strips (see
 * timeline_strip.h).
 */
#include "tools/spoor-trace/timeline_strip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A strip's shades, the darkest its most crowded column. */
#define LEVELS 5

static const struct {
	const char *cls;	/* the rectangles' class */
	const char *one, *many; /* the count's noun */
	const char *fill;
	bool below; /* under the lane, else above */
} kinds[TSTRIP_KINDS] = {
    [TSTRIP_PF] = {"pf", "page fault", "page faults", "#d00", false},
    [TSTRIP_IPC] = {"ipc", "IPC call or reply", "IPC calls and replies", "#15c", true},
};

int tstrips_init(struct tstrips *s, uint32_t width, uint32_t cpus)
{
	memset(s, 0, sizeof(*s));
	s->width = width;
	for (uint32_t c = 0; c < TTRACE_MAX_CPUS; c++) {
		for (int k = 0; (cpus & (1u << c)) && k < TSTRIP_KINDS; k++) {
			s->counts[c][k] = calloc(width, sizeof(uint32_t));
			if (!s->counts[c][k]) {
				tstrips_free(s);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

void tstrips_free(struct tstrips *s)
{
	for (uint32_t c = 0; c < TTRACE_MAX_CPUS; c++) {
		for (int k = 0; k < TSTRIP_KINDS; k++) {
			free(s->counts[c][k]);
			s->counts[c][k] = NULL;
		}
	}
}

int tstrips_kind(uint16_t kind)
{
	switch (kind) {
	case TTRACE_KIND_mem_pf:
		return TSTRIP_PF;
	case TTRACE_KIND_ipc_call:
	case TTRACE_KIND_ipc_reply:
		return TSTRIP_IPC;
	default:
		return -1;
	}
}

bool tstrips_below(int k)
{
	return kinds[k].below;
}

void tstrips_count(struct tstrips *s, uint32_t cpu, int k, size_t col)
{
	uint32_t n = ++s->counts[cpu][k][col];

	s->max[k] = n > s->max[k] ? n : s->max[k];
}

/* The bits of n: its log2, rounded up from the next. */
static int bits(uint32_t n)
{
	return 32 - __builtin_clz(n);
}

/* Count n's shade, 0 (none) to LEVELS, on a log scale against max. */
static int level(uint32_t n, uint32_t max)
{
	return n ? (LEVELS * bits(n) + bits(max) - 1) / bits(max) : 0;
}

void tstrips_draw(const struct tstrips *s, FILE *out, uint32_t cpu, int k, double left, double y,
		  uint64_t since, uint64_t span)
{
	const uint32_t *n = s->counts[cpu][k];
	double ns_per_col = (double)span / s->width;

	for (size_t i = 0, j; i < s->width; i = j) {
		int lv = level(n[i], s->max[k]);
		uint64_t sum = 0;
		for (j = i; j < s->width && level(n[j], s->max[k]) == lv; j++) {
			sum += n[j];
		}
		if (!lv) {
			continue;
		}
		fprintf(out,
			"<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%zu\" height=\"%d\" "
			"fill=\"%s\" fill-opacity=\"%.1f\"><title>%llu %s, %.6f to %.6f s since "
			"boot</title></rect>\n",
			kinds[k].cls, left + (double)i, y, j - i, TSTRIP_HEIGHT, kinds[k].fill,
			(double)lv / LEVELS, (unsigned long long)sum,
			sum == 1 ? kinds[k].one : kinds[k].many,
			(since + (double)i * ns_per_col) / 1e9,
			(since + (double)j * ns_per_col) / 1e9);
	}
}

const char *tstrips_legend(const struct tstrips *s, int k, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s a lane (darkest: %u a pixel)", kinds[k].many,
		 kinds[k].below ? "below" : "above", s->max[k]);
	return kinds[k].fill;
}
