/*
 * json: a string as JSON holds it, for the converters that write JSON
 * (perfetto.c, perfetto_profile.c).
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_JSON_H
#define SPOOR_TOOLS_SPOOR_TRACE_JSON_H

#include <stdio.h>

/*
 * Writes s quoted, with '"' and '\\' escaped and every other byte outside
 * printable ASCII as \u00XX (the bytes taken for Latin-1), so the output
 * stays UTF-8 whatever the trace's names hold.
 */
void json_string(FILE *out, const char *s);

#endif
