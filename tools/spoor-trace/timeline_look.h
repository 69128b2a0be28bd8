/*
 * timeline_look: how the timeline (timeline.h) shows things, apart from
 * what it shows: a program's colour, times as people read them and the
 * time axis (names go into the picture through xml.h).
 *
 * A program's colour comes from a hash of its name alone, so the same
 * program has the same colour in every picture, whatever its pid, the
 * trace or the window. The colours are saturated (never grey: grey is
 * idle and other programs) and light enough for black text on them.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_LOOK_H
#define SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_LOOK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The fills of what is not a program's work. */
#define TIMELINE_IDLE_FILL   "#e4e4e4"
#define TIMELINE_OTHER_FILL  "#9a9a9a"
#define TIMELINE_NONE_FILL   "white"   /* who ran is not known: no switch says */
#define TIMELINE_NONAME_FILL "#5f6b7a" /* a program whose name the trace lost */

/* The longest fill timeline_colour() writes, with its NUL. */
#define TIMELINE_FILL_MAX 24

/* The fill of program name into buf (TIMELINE_FILL_MAX bytes). */
void timeline_colour(const char *name, char *buf);

/* A duration of ns in 3 or 4 digits and a unit: "850 us", "31.2 ms", "1.52 s". */
void timeline_duration(uint64_t ns, char *buf, size_t size);

/*
 * The time axis of a window of span ns: a tick every 1, 2 or 5 times a
 * power of ten (about ten of them), each a grey line from top to bottom
 * at left + offset * width / span, labelled above top with its offset
 * from the window's start, in the unit that suits the span ("20 ms").
 */
void timeline_axis(FILE *out, uint64_t span, double left, double width, double top, double bottom);

#endif
