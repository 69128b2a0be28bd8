/*
 * func_notrace: the table tools/func-notrace makes at build time of the
 * kernel functions compiled without an entry NOP, each with the reason
 * (abi/trace_func.h, TTRACE_FUNC_WHYS) the Makefile's FUNC_NOTRACE_*
 * lists give its file. The first link has no table: trace/func.c
 * declares it weak.
 */
#ifndef SPOOR_TRACE_FUNC_NOTRACE_H
#define SPOOR_TRACE_FUNC_NOTRACE_H

#include <stdint.h>

#include "abi/trace_func.h"

struct func_notrace {
	const char *name;
	uint8_t why; /* TTRACE_FUNC_WHY_* */
};

extern const struct func_notrace func_notrace[];
extern const uint32_t func_notrace_count;

#endif
