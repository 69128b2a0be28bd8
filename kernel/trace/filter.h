/*
 * filter: the kinds' filters in the kernel (abi/trace_pred.h). ktrace.c
 * installs one with every other CPU stopped (ttrace_filter()); the slow
 * path runs it before it reserves, with interrupts off. That pairing is
 * the filters' whole locking: a CPU runs a filter only with interrupts
 * off, a stop waits for every CPU to take its interrupt, so no CPU is
 * inside a filter while one is replaced, and none sees half of one.
 */
#ifndef SPOOR_TRACE_FILTER_H
#define SPOOR_TRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace_pred.h"
#include "common/trace_pred.h"

/*
 * Every other CPU stopped, interrupts off: kind's filter becomes the n
 * instructions at p (a program ttrace_pred_verify() accepted for kind),
 * or none for n = 0.
 */
void filter_install(uint16_t kind, const struct ttrace_pred_insn *p, uint32_t n);

/*
 * [stop] The kinds with a filter: bit k for kind k. Read by the slow
 * path inline (filter_on()), where a call would cost every event of a
 * filtered kind more than the test does.
 */
extern uint64_t filter_kind_bits;

/* The kinds with a filter: bit k for kind k. */
uint64_t filter_kinds(void);

/* Whether kind has a filter. Interrupts off. */
static inline bool filter_on(uint16_t kind)
{
	return filter_kind_bits >> (kind & 63) & 1;
}

/* Whether kind's filter keeps ev. Interrupts off; kind has a filter (filter_on()). */
bool filter_keeps(uint16_t kind, const struct ttrace_pred_event *ev);

#endif
