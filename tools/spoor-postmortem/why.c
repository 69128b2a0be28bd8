/*
 * why: one-line refusals (why.h).
 */
#include "tools/spoor-postmortem/why.h"

#include <stdarg.h>
#include <stdio.h>

int why_fail(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
	return -1;
}
