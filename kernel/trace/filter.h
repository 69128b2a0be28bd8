/*
 * filter: the kinds' filters in the kernel (abi/trace_pred.h), each kept
 * in its lowered form (common/trace_pred_jump.h): the slow path and the
 * filtered path's interpreter (emit.c) run it over the record of
 * pred_record.h, the filtered path compiled (pred_run.h). ktrace.c
 * installs one with every other CPU stopped (ttrace_filter()); the paths
 * that run it do so before they reserve, with interrupts off, or, the
 * compiled code, inside a restartable range that a stop sends a CPU back
 * to the start of. That pairing is the filters' whole locking: a stop
 * waits for every CPU to take its interrupt, so no CPU is inside a
 * filter while one is replaced, and none sees half of one.
 */
#ifndef SPOOR_TRACE_FILTER_H
#define SPOOR_TRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_pred_jump.h"

/*
 * Every other CPU stopped, interrupts off: kind's filter becomes *j (a
 * program ttrace_pred_verify() accepted for kind, lowered by
 * pred_record_lower()), or none for j NULL.
 */
void filter_install(uint16_t kind, const struct ttrace_pred_jumps *j);

/* The kinds with a filter: bit k for kind k. */
uint64_t filter_kinds(void);

/*
 * [stop] Each kind's filter, NULL for none. Read inline by the paths
 * that run them, where a call would cost every event of a filtered kind
 * more than the test.
 */
extern const struct ttrace_pred_jumps *filter_of[TTRACE_KIND_LIMIT];

#endif
