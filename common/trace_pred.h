/*
 * trace_pred: the filters' bytecode (abi/trace_pred.h) checked against a
 * kind's format and run over one event. The kernel checks a program
 * once, as trace_filter hands it over, and runs it at each tracepoint of
 * the kind; traced and the host tests use the same two functions. Pure
 * code: no allocation, no locks, bounded time (one pass over at most
 * TTRACE_PRED_INSNS_MAX instructions).
 */
#ifndef SPOOR_COMMON_TRACE_PRED_H
#define SPOOR_COMMON_TRACE_PRED_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "abi/trace_pred.h"

/* What a program sees of one event. */
struct ttrace_pred_event {
	const uint64_t *data; /* the kind's words, at least as many as its format names */
	uint32_t pid, tid, cpu, ctx;
	const char *comm; /* NUL-terminated, or NULL: no name (the kernel, idle) */
};

/* The type of word i of kind's format, as abi/trace_kinds.def gives it ('x', 'u', 'd', 's', 'y'),
 * or 0 past its words. */
char ttrace_pred_word_format(uint16_t kind, uint32_t i);

/*
 * Checks the n instructions at p as a filter of kind (abi/trace_pred.h,
 * trace_filter): 0, or -EINVAL for any fault, a kind that does not exist
 * or n outside 1..TTRACE_PRED_INSNS_MAX.
 */
int ttrace_pred_verify(uint16_t kind, const struct ttrace_pred_insn *p, uint32_t n);

/* Runs a program ttrace_pred_verify() accepted over ev: whether the event is kept. */
bool ttrace_pred_eval(const struct ttrace_pred_insn *p, uint32_t n,
		      const struct ttrace_pred_event *ev);

#endif
