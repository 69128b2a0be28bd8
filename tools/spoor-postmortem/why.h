/*
 * why: the one-line refusals of spoor-postmortem's parts (dump.c,
 * monitor.c): printf into the caller's why buffer, then -1.
 */
#ifndef SPOOR_TOOLS_POSTMORTEM_WHY_H
#define SPOOR_TOOLS_POSTMORTEM_WHY_H

#include <stddef.h>

/* Formats the reason into why (why_size bytes, NUL-terminated); returns -1. */
int why_fail(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
