/*
 * xml: text for the SVG pictures (timeline, flame graph). Program and
 * function names come from the trace and may hold anything.
 */
#ifndef SPOOR_TRACE_XML_H
#define SPOOR_TRACE_XML_H

#include <stddef.h>
#include <stdio.h>

/* len bytes of s as XML text: printable ASCII, the five specials escaped, '?' for the rest. */
void xml_text(FILE *out, const char *s, size_t len);

#endif
