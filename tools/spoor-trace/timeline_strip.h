/*
 * timeline_strip: the timeline's density strips. Events that come in
 * bursts of thousands (page faults; IPC calls and replies) are counted
 * per pixel column of their CPU's lane, and each kind drawn as a strip
 * along the lane: a column's shade says how many, on a log scale, the
 * darkest being the most crowded column of that kind in the picture, so a
 * lone fault still shows beside a burst. Columns of one shade side by side
 * are one rectangle, whose <title> starts with their count.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_STRIP_H
#define SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_STRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/trace.h"

enum tstrip_kind { TSTRIP_PF, TSTRIP_IPC, TSTRIP_KINDS };

#define TSTRIP_HEIGHT 6

struct tstrips {
	uint32_t width;					 /* columns */
	uint32_t *counts[TTRACE_MAX_CPUS][TSTRIP_KINDS]; /* NULL: a CPU not drawn */
	uint32_t max[TSTRIP_KINDS];			 /* the most in one column */
};

/* Counts for width columns on each CPU of the mask cpus. Returns 0 or -ENOMEM. */
int tstrips_init(struct tstrips *s, uint32_t width, uint32_t cpus);
void tstrips_free(struct tstrips *s);

/* The strip events of kind (TTRACE_KIND_*) go to, or -1. */
int tstrips_kind(uint16_t kind);

/* Whether strip k is drawn below the lane, else above. */
bool tstrips_below(int k);

/* One more event of strip k in column col of cpu's lane (a lane tstrips_init() counts). */
void tstrips_count(struct tstrips *s, uint32_t cpu, int k, size_t col);

/*
 * Draws strip k of cpu's lane at y, its columns from x left; column i
 * covers ns since + i * span / width, as the titles say.
 */
void tstrips_draw(const struct tstrips *s, FILE *out, uint32_t cpu, int k, double left, double y,
		  uint64_t since, uint64_t span);

/* Strip k's legend text into buf; returns its fill. */
const char *tstrips_legend(const struct tstrips *s, int k, char *buf, size_t size);

#endif
