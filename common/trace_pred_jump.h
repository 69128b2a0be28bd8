/*
 * trace_pred_jump: a filter's program (abi/trace_pred.h) lowered, once it
 * passed ttrace_pred_verify(), into the form the kernel runs at each
 * tracepoint of its kind: a list of terms with forward jumps, over a
 * record whose layout the caller gives. The bytecode stays the contract
 * (traced sends it, the kernel checks it, GET gives it back); this form
 * is private to whoever lowers it, and cheaper to run:
 *  - a term is one test, ((word & mask) - sub) < lim unsigned, of the
 *    64-bit word at byte at of the record: every numeric comparison of
 *    the bytecode is one such test, its constants folded (a test that
 *    always or never holds is no term at all), and a comparison of comm
 *    is a term for each of the name's words up to its NUL;
 *  - each term says where to go next when it holds and when it does
 *    not: a later term, or the verdict (KEEP, REJECT). && and || become
 *    those jumps, ! swaps them, so a run stops at the first term that
 *    settles the verdict and reads no field twice.
 * Every jump goes forward (to a term of a higher index, or a verdict),
 * which the lowering makes so by building the list from its end: a run
 * visits each term at most once, and ends within as many steps as the
 * list has terms.
 *
 * Pure code, as trace_pred.c: no allocation, no locks.
 */
#ifndef SPOOR_COMMON_TRACE_PRED_JUMP_H
#define SPOOR_COMMON_TRACE_PRED_JUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/proc.h"
#include "abi/trace_pred.h"

/*
 * Terms a list may have: every comparison a comm of four words, at most
 * half of a program's instructions comparisons (the rest join them).
 */
#define TTRACE_PRED_TERMS (TTRACE_PRED_INSNS_MAX / 2 * (PROC_NAME_MAX / 8))

_Static_assert(PROC_NAME_MAX == TTRACE_PRED_STR_BYTES, "comm's words are the string's");

/* One term: holds when ((the word at `at` & mask) - sub) < lim, unsigned. */
struct ttrace_pred_term {
	uint64_t mask;
	uint64_t sub;
	uint64_t lim;
	uint16_t at;	  /* the word's byte offset in the record */
	uint16_t next[2]; /* where to go: [0] when the term does not hold, [1] when it does */
	uint8_t field;	  /* the field it tests (TTRACE_PRED_F_*), for a code generator */
	uint8_t bytes;	  /* the field's width (comm: a word of it, 8), as the layout gives it */
};

/*
 * A jump's target: a term's byte offset in term[] (a run adds it to the
 * list's address, no index to scale), or past them the verdicts.
 */
#define TTRACE_PRED_TERM_AT(i) ((i) * (uint32_t)sizeof(struct ttrace_pred_term))
#define TTRACE_PRED_KEEP       TTRACE_PRED_TERM_AT(TTRACE_PRED_TERMS)
#define TTRACE_PRED_REJECT     TTRACE_PRED_TERM_AT(TTRACE_PRED_TERMS + 1)

_Static_assert(TTRACE_PRED_REJECT < UINT16_MAX, "a jump is 16 bits");

/*
 * A lowered program: its terms are term[first..TTRACE_PRED_TERMS - 1],
 * at least one (a constant program is one that always or never holds).
 */
struct ttrace_pred_jumps {
	struct ttrace_pred_term term[TTRACE_PRED_TERMS]; /* first: a target is j's own offset */
	uint16_t entry;					 /* the first term to run */
	bool reads_comm; /* a term reads comm: the record must hold the name */
};

/*
 * Where a record holds each field: at[f] the byte offset of field f
 * (TTRACE_PRED_F_*, abi/trace_pred.h), bytes[f] its width (1, 2, 4 or 8,
 * little-endian; comm: the PROC_NAME_MAX bytes of the name, bytes past
 * its NUL of any value). Eight bytes must be readable from every
 * field's offset, and from each of comm's words.
 */
struct ttrace_pred_layout {
	uint16_t at[TTRACE_PRED_F_COMM + 1];
	uint8_t bytes[TTRACE_PRED_F_COMM + 1];
};

/*
 * Lowers the n instructions at p, which ttrace_pred_verify() accepted for
 * their kind, over records laid out as l, into *j.
 */
void ttrace_pred_lower(const struct ttrace_pred_insn *p, uint32_t n,
		       const struct ttrace_pred_layout *l, struct ttrace_pred_jumps *j);

/* *j's verdict on the event in record (laid out as the lowering's layout said). */
static inline bool ttrace_pred_run(const struct ttrace_pred_jumps *j, const void *record)
{
	const char *terms = (const char *)j->term;
	uintptr_t at = j->entry;

	do {
		const struct ttrace_pred_term *t = (const struct ttrace_pred_term *)(terms + at);
		uint64_t w;

		__builtin_memcpy(&w, (const char *)record + t->at, sizeof(w));
		at = ((w & t->mask) - t->sub) < t->lim ? t->next[1] : t->next[0];
	} while (at < TTRACE_PRED_KEEP);
	return at == TTRACE_PRED_KEEP;
}

#endif
