/*
 * trace_filter_pred: the read side's predicates, FILTERS' `if PREDICATE`
 * (common/trace_filter.h), for every reader that chooses events after
 * the rings: traced (dump, follow, stats, hist, save), and spoor-trace
 * on the host. The text is the one language of trace_pred_parse.h,
 * compiled by the one parser into the same bytecode the kernel runs at a
 * tracepoint, and run by the same evaluator (trace_pred.h), so a
 * predicate means the same thing at the tracepoint, in traced and on the
 * host.
 *
 * WHICH KINDS. A predicate is compiled for each kind the filter's other
 * words select (kind= and cat=, or every kind without them), as
 * `trace on` compiles a filter set on several kinds: a comparison on a
 * field a kind lacks is false for that kind's events (so `trace dump if
 * result < 0` is syscall_exit's failing calls, and no event of a kind
 * without result), as ftrace's and perf's filters treat a field an
 * event lacks. The errors are the kernel filter's: a field that none of
 * the selected kinds has, or, when the filter selects one kind alone
 * (kind=syscall_entry), a field that kind lacks, is refused with its
 * place. The common fields (pid tid cpu ctx comm) apply to every kind.
 *
 * comm is the name of the process the event names, as the kernel's
 * filters see it: none for pid 0 (the kernel), and none for a process
 * whose spawn record the aux ring evicted (a reader cannot know it).
 */
#ifndef SPOOR_COMMON_TRACE_FILTER_PRED_H
#define SPOOR_COMMON_TRACE_FILTER_PRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/traced.h"
#include "common/trace_pred.h"
#include "common/trace_pred_parse.h"
#include "common/trace_ring.h"

_Static_assert(TTRACE_KIND_LIMIT <= 64, "a predicate's kinds are one 64-bit set");

/* A predicate compiled for each kind a filter selects. */
struct ttrace_filter_pred {
	uint64_t kinds; /* bit k: prog[k] is kind k's program; 0: no predicate, all pass */
	struct ttrace_pred_prog prog[TTRACE_KIND_LIMIT];
};

/* The kinds f selects by kind= and cat= (every known kind without them), bit k for kind k. */
uint64_t ttrace_filter_pred_kinds(const struct traced_filter *f);

/*
 * Checks text as f's predicate (WHICH KINDS): 0, or -EINVAL with why set
 * to one line, "bad filter: at 1: unknown field 'rsult'", the words
 * `trace on ... if` says for the same fault.
 */
int ttrace_filter_pred_check(const char *text, const struct traced_filter *f, char *why,
			     size_t why_size);

/*
 * Compiles text (NULL or "": none) for every kind f selects into *p:
 * 0, or -EINVAL and why as ttrace_filter_pred_check(), *p then none.
 */
int ttrace_filter_pred_compile(const char *text, const struct traced_filter *f,
			       struct ttrace_filter_pred *p, char *why, size_t why_size);

/*
 * Whether an event of kind passes p: true without a predicate, false for
 * a kind p was not compiled for (its filter leaves it out). ev's comm as
 * the top of this file says.
 */
bool ttrace_filter_pred_keeps(const struct ttrace_filter_pred *p, uint16_t kind,
			      const struct ttrace_pred_event *ev);

/*
 * ttrace_filter_pred_keeps() for a record r, or for the event whose head
 * slot is e, whose process a reader's decoder calls comm (its "?" for an
 * evicted name, or NULL: unknown).
 */
bool ttrace_filter_pred_keeps_record(const struct ttrace_filter_pred *p,
				     const struct ttrace_record *r, const char *comm);
bool ttrace_filter_pred_keeps_entry(const struct ttrace_filter_pred *p,
				    const struct ttrace_entry *e, const char *comm);

#endif
