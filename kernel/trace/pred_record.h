/*
 * pred_record: the record the kinds' filters and triggers run over
 * (common/trace_pred_jump.h), which is this CPU's struct cpu: pid and
 * tid from trace_ids, the CPU from id, the context from trace_word1, as
 * the straight path writes them, and the event's words and its process's
 * name from trace_pred_words and trace_pred_comm, which the path that
 * runs a program fills first. So a program reads the common fields
 * where they already are, and an event costs its check five stores.
 *
 * The record is the CPU's own, and is filled and read with interrupts
 * off: an interrupt's events, checked on the same CPU, cannot overwrite
 * it halfway, and the stop that replaces a program (filter.h) waits
 * until no CPU runs one.
 */
#ifndef SPOOR_TRACE_PRED_RECORD_H
#define SPOOR_TRACE_PRED_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "abi/trace_pred.h"
#include "arch/x86_64/percpu.h"
#include "common/trace_pred_jump.h"
#include "proc/process.h"
#include "sched/thread.h"

/* Lowers the n instructions at p, which ttrace_pred_verify() accepted, over the record into *j. */
void pred_record_lower(const struct ttrace_pred_insn *p, uint32_t n, struct ttrace_pred_jumps *j);

/*
 * Interrupts off: copies the name of the process c's event names into
 * c's record (pid 0: the kernel's, which has no name). Inline: a call
 * would make the filtered path keep its words across it.
 */
static inline void pred_record_name(struct cpu *c)
{
	const struct thread *t = c->current;

	if ((uint32_t)c->trace_ids && t && t->proc) {
		__builtin_memcpy(c->trace_pred_comm, t->proc->name, PROC_NAME_MAX);
	} else {
		__builtin_memset(c->trace_pred_comm, 0, PROC_NAME_MAX);
	}
}

/*
 * [stop] Kind k's programs read comm: PRED_NAMED_FILTER for its filter's,
 * PRED_NAMED_TRIGGER for its trigger's. Changed by their installs.
 */
#define PRED_NAMED_FILTER  1u
#define PRED_NAMED_TRIGGER 2u
extern uint8_t pred_named[TTRACE_KIND_LIMIT];

/* Every other CPU stopped: whether kind's program of this bit (PRED_NAMED_*) reads comm. */
static inline void pred_record_named(uint16_t kind, uint8_t bit, bool reads)
{
	pred_named[kind] = (uint8_t)(reads ? pred_named[kind] | bit : pred_named[kind] & ~bit);
}

/*
 * Interrupts off, c's record holding the words of an event of kind:
 * copies in the name, if one of kind's programs reads it (once for both).
 */
static inline void pred_record_fill(struct cpu *c, uint16_t kind)
{
	if (__builtin_expect(pred_named[kind], 0)) {
		pred_record_name(c);
	}
}

#endif
