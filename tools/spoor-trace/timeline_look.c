/*
 * timeline_look: colours and times for the timeline (see
 * timeline_look.h).
 */
#include "tools/spoor-trace/timeline_look.h"

#include <string.h>

#include "common/fnv.h"

#define AXIS_TICKS 10

/* The programs' colours: 8 hues 45 degrees apart, each at three lightnesses. */
#define PALETTE_HUES 8
#define PALETTE_SIZE (3 * PALETTE_HUES)

void timeline_colour(const char *name, char *buf)
{
	uint64_t h = ttrace_fnv1a(TTRACE_FNV_OFFSET, name, strlen(name));
	unsigned i = (unsigned)(h >> 32) % PALETTE_SIZE; /* FNV's high bits mix best */

	snprintf(buf, TIMELINE_FILL_MAX, "hsl(%u,65%%,%u%%)", i % PALETTE_HUES * 45,
		 52 + i / PALETTE_HUES * 14);
}

/* The units times are shown in, largest first. */
static const struct {
	const char *name;
	uint64_t ns;
} units[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}};
#define NUNITS (sizeof(units) / sizeof(units[0]))

void timeline_duration(uint64_t ns, char *buf, size_t size)
{
	size_t u = 0;

	while (u + 1 < NUNITS && ns < units[u].ns) {
		u++;
	}
	double v = (double)ns / (double)units[u].ns;
	snprintf(buf, size, "%.*f %s",
		 v >= 100 || u + 1 == NUNITS ? 0
		 : v >= 10		     ? 1
					     : 2,
		 v, units[u].name);
}

/* A round step for about AXIS_TICKS ticks over span ns: 1, 2 or 5 times a power of ten. */
static uint64_t tick_step(uint64_t span)
{
	static const uint64_t mult[] = {1, 2, 5};

	for (uint64_t step = 1;; step *= 10) {
		for (size_t i = 0; i < 3; i++) {
			if (span / (step * mult[i]) <= AXIS_TICKS) {
				return step * mult[i];
			}
		}
		if (step > UINT64_MAX / 100) {
			return step * 10;
		}
	}
}

void timeline_axis(FILE *out, uint64_t span, double left, double width, double top, double bottom)
{
	uint64_t step = tick_step(span);
	size_t u = 0;
	int decimals = 0;

	/* The unit in which the span is at least 2: "1500 ms", not "1.5 s" with 0.2 s ticks. */
	while (u + 1 < NUNITS && span < 2 * units[u].ns) {
		u++;
	}
	for (uint64_t p = step; p < units[u].ns; p *= 10) {
		decimals++; /* enough to tell the ticks apart: 0.5 ms */
	}
	for (uint64_t ns = 0; ns <= span; ns += step) {
		double x = left + (double)ns * width / (double)span;
		fprintf(
		    out,
		    "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#d8d8d8\"/>\n"
		    "<text x=\"%.2f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.*f %s"
		    "</text>\n",
		    x, top - 4, x, bottom, x, top - 8, decimals, (double)ns / (double)units[u].ns,
		    units[u].name);
		if (step > span - ns) {
			break;
		}
	}
}
