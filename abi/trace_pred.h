/*
 * Trace filters: predicates the kernel evaluates at a tracepoint before
 * it reserves ring space, so an event a filter rejects takes none. A
 * filter belongs to one kind; traced compiles a person's text
 * (common/trace_pred_parse.h: `result < 0 && comm == "memtest"`) into the
 * bytecode below, once for each kind it is set on, and hands it to the
 * kernel with trace_filter (abi/syscalls.def).
 *
 * THE BYTECODE is a list of at most TTRACE_PRED_INSNS_MAX instructions
 * run once each, first to last, over a stack of truth values: there are
 * no jumps, so a program ends after as many steps as it has (that is
 * stronger than "no backward jumps", and && and || need none: a field's
 * load has no side effect, so both sides may always be evaluated). A
 * comparison pushes one truth value; AND and OR pop two and push one;
 * NOT replaces the top; TRUE and FALSE push a constant. A program must
 * leave exactly one value, never pop an empty stack and never hold more
 * than TTRACE_PRED_DEPTH_MAX; the event is kept when that value is true.
 *
 * A comparison takes one field of the event and the instruction's
 * constant: field is a data word (TTRACE_PRED_F_DATA + i for the kind's
 * word i, by the order abi/trace_kinds.def names them) or a common field
 * (pid, tid, cpu, ctx: the context, TTRACE_CTX_*; comm: the name of the
 * process the event names, as `comm=` prints it). Data words and the
 * common numbers compare as 64-bit integers, unsigned, except with the
 * signed ops, which only a word of format d takes (and ordering on a
 * d word must use them); BIT is true when field & value is not zero.
 * comm compares only with STR_EQ and STR_NE, against str, a NUL-padded
 * string of fewer than TTRACE_PRED_STR_BYTES bytes.
 *
 * trace_filter(control slot, kind, insns, n) with a trace-control
 * capability (CAP_RIGHT_WRITE) sets kind's filter to the n instructions
 * at insns, or removes it for n = 0 (insns is then ignored). The kernel
 * checks the whole program first (ttrace_pred_verify(): every op and
 * field known, every field one the kind's format has, the op fit for the
 * field's type, reserved bytes zero, the stack's rule above) and returns
 * -EINVAL, having changed nothing, for any fault; -EINVAL too for a kind
 * that does not exist, -EFAULT for insns it cannot read, -ENOMEM without
 * a trace area, -ECPUSTUCK as trace_control's ops that move the
 * tracepoints, then the slot errors of abi/cap.h. Returns 0. A filter
 * holds from the call's return on every CPU: no event of the kind that
 * it rejects is stored after. The header's filter_kinds has bit k while
 * kind k has one; the events rejected are counted in each CPU's
 * filtered (abi/trace.h ACCOUNTING), never as lost. PID tracking and
 * quiet processes (TTRACE_OP_TRACK, QUIET) act first: an event they
 * leave out is not emitted, so not filtered either.
 */
#ifndef SPOOR_ABI_TRACE_PRED_H
#define SPOOR_ABI_TRACE_PRED_H

#include <stddef.h>
#include <stdint.h>

#define TTRACE_PRED_INSNS_MAX 32
#define TTRACE_PRED_DEPTH_MAX 8
#define TTRACE_PRED_STR_BYTES 32  /* PROC_NAME_MAX (abi/proc.h), the NUL included */
#define TTRACE_PRED_TEXT_MAX  200 /* bytes of a filter's text (common/trace_pred_parse.h) */

/* Ops: value, NAME (TTRACE_PRED_<NAME>), what it does. */
#define TTRACE_PRED_OPS(X)                                                                         \
	X(1, EQ, "field == value")                                                                 \
	X(2, NE, "field != value")                                                                 \
	X(3, LT, "field < value, unsigned")                                                        \
	X(4, LE, "field <= value, unsigned")                                                       \
	X(5, GT, "field > value, unsigned")                                                        \
	X(6, GE, "field >= value, unsigned")                                                       \
	X(7, SLT, "field < value, signed")                                                         \
	X(8, SLE, "field <= value, signed")                                                        \
	X(9, SGT, "field > value, signed")                                                         \
	X(10, SGE, "field >= value, signed")                                                       \
	X(11, BIT, "field & value != 0")                                                           \
	X(12, STR_EQ, "comm is str")                                                               \
	X(13, STR_NE, "comm is not str")                                                           \
	X(14, AND, "pop two, push both true")                                                      \
	X(15, OR, "pop two, push either true")                                                     \
	X(16, NOT, "the top negated")                                                              \
	X(17, TRUE, "push true")                                                                   \
	X(18, FALSE, "push false")

enum {
#define TTRACE_PRED_OP_(value, NAME, what) TTRACE_PRED_##NAME = value,
	TTRACE_PRED_OPS(TTRACE_PRED_OP_)
#undef TTRACE_PRED_OP_
	    TTRACE_PRED_OP_LIMIT
};

/* Fields: the data words from TTRACE_PRED_F_DATA, then the common ones. */
#define TTRACE_PRED_F_DATA 0 /* + i: data word i, i < TTRACE_HEAD_WORDS */
#define TTRACE_PRED_F_PID  16
#define TTRACE_PRED_F_TID  17
#define TTRACE_PRED_F_CPU  18
#define TTRACE_PRED_F_CTX  19
#define TTRACE_PRED_F_COMM 20

/* One instruction. Fields an op does not use are zero. */
struct ttrace_pred_insn {
	uint8_t op;	    /* TTRACE_PRED_* */
	uint8_t field;	    /* TTRACE_PRED_F_*: comparisons only */
	uint16_t reserved;  /* zero */
	uint32_t reserved1; /* zero */
	union {
		uint64_t value;			 /* the numeric comparisons' constant */
		char str[TTRACE_PRED_STR_BYTES]; /* STR_EQ, STR_NE: NUL-padded */
	};
};

_Static_assert(sizeof(struct ttrace_pred_insn) == 40, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, op) == 0, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, field) == 1, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, reserved) == 2, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, reserved1) == 4, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, value) == 8, "abi");
_Static_assert(offsetof(struct ttrace_pred_insn, str) == 8, "abi");

#endif
