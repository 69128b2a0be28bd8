/*
 * preds: tracedfuzz's read-side predicates (abi/traced.h, struct
 * traced_pred): random and mutated predicate texts in every operation of
 * traced that takes one.
 */
#ifndef SPOOR_TRACEDFUZZ_PREDS_H
#define SPOOR_TRACEDFUZZ_PREDS_H

#include <stdint.h>

#include "abi/traced.h"

/* What preds_fuzz() saw traced do with its texts. */
struct preds_tally {
	uint32_t answered; /* a result: the text compiled */
	uint32_t refused;  /* -EINVAL */
};

/*
 * Sends n predicate texts: valid ones of a small corpus, the same
 * mutated byte-wise, and ones every check must refuse (too long, too
 * deep, unknown fields, wrong types, values out of range, unterminated
 * strings, NUL bytes inside, a reserved word set), each in one of DUMP
 * (text or binary), FOLLOW's first page, STATS, STATS' HIST, SAVE, and
 * the control level's FILTER (`trace on ... if`) and TRIGGER. Each
 * answer must be a result or -EINVAL; after each, tracing's mask, mode,
 * filters and (with tracing off, as before, status) every CPU's ledger
 * must be what they were: a FILTER or TRIGGER that took its text is
 * removed again first. Returns 0, or -1 having printed the first
 * request that failed.
 */
int preds_fuzz(uint32_t n, const struct traced_status *before, struct preds_tally *t);

#endif
