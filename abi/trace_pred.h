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

/*
 * TRIGGERS: a predicate and an action on one kind (issue 34 item 2),
 * checked where the kind's filter is, on the events it keeps (an event
 * a filter rejects is never recorded, so nothing acts on it). When the
 * predicate holds, the trigger fires: its fired count goes up by one,
 * and its action runs:
 *  - TTRACE_TRIG_COUNT: nothing more;
 *  - TTRACE_TRIG_STACK: this event carries its call stack (abi/trace.h,
 *    CALL STACKS), the kind's other events none;
 *  - TTRACE_TRIG_STOP: the rings stop taking events once this one is
 *    stored: on its CPU nothing is recorded after it (the stop is
 *    checked with interrupts off where the slot is reserved), on the
 *    others nothing that reserves once they see it. While a STOP
 *    trigger is set every enabled tracepoint takes the slow path, which
 *    is where the rings are stopped (the straight path tests nothing).
 *    The events the stopped rings do not take are not emitted, as with
 *    their category off. Setting or removing that kind's trigger starts
 *    the rings again;
 *  - TTRACE_TRIG_SAVE: the first firing is the moment: the kernel keeps
 *    its time and wakes the reader bound to the trace wake-up
 *    (trace_wake, abi/trace.h) with TTRACE_WAKE_TRIGGER at the next
 *    tick; the save itself is the reader's (traced). Later firings are
 *    counted only: one save a trigger, however often it fires.
 *
 * trace_trigger(control slot, TTRACE_TRIG_SET or GET, kind, struct
 * ttrace_trigger *t) with a trace-control capability (CAP_RIGHT_WRITE):
 * SET makes t's action and program kind's trigger, or removes it for
 * action NONE (n then zero), its counts starting from zero;
 * GET fills t with kind's trigger (action NONE: none). SET checks as
 * trace_filter does (-EINVAL for a program ttrace_pred_verify() refuses,
 * an unknown action, STACK on the user kind, which carries no stack,
 * reserved or out fields not zero) and changes nothing on an error;
 * -EINVAL too for an unknown kind or op, -EFAULT for t it cannot read or
 * write, -ENOMEM without a trace area, -ECPUSTUCK as trace_filter. A
 * trigger holds from the call's return on every CPU.
 */
#define TTRACE_TRIG_SET 0
#define TTRACE_TRIG_GET 1

/* Actions: value, NAME (TTRACE_TRIG_<NAME>), the word the shell takes. */
#define TTRACE_TRIG_ACTIONS(X)                                                                     \
	X(1, STOP, "stop")                                                                         \
	X(2, SAVE, "save")                                                                         \
	X(3, STACK, "stack")                                                                       \
	X(4, COUNT, "count")

enum {
	TTRACE_TRIG_NONE = 0,
#define TTRACE_TRIG_ACTION_(value, NAME, word) TTRACE_TRIG_##NAME = value,
	TTRACE_TRIG_ACTIONS(TTRACE_TRIG_ACTION_)
#undef TTRACE_TRIG_ACTION_
	    TTRACE_TRIG_ACTION_LIMIT
};

/*
 * NOTES: beside each kind's filter and its trigger the kernel keeps a
 * note of TTRACE_NOTE_BYTES bytes for the one who sets them (traced: the
 * text a filter or a trigger was set from, and what a trigger's save is
 * to be), so that a restarted traced shows and does what the one before
 * it set, as the programs themselves survive it. The kernel never reads
 * a note: it keeps the bytes it was given, all zero from boot, and ties
 * them to nothing (a filter removed keeps its note until the note is set
 * again; the setter writes it after the program and clears it before).
 *
 * trace_note(control slot, op, kind, buf) with a trace-control
 * capability (CAP_RIGHT_WRITE): op TTRACE_NOTE_SET_FILTER or
 * SET_TRIGGER copies TTRACE_NOTE_BYTES bytes from buf into kind's note,
 * GET_FILTER or GET_TRIGGER copies the note to buf. Returns 0; -EINVAL
 * for an unknown op or kind, -EFAULT for buf it cannot read or write,
 * then the slot errors of abi/cap.h.
 */
#define TTRACE_NOTE_BYTES 320

#define TTRACE_NOTE_SET_FILTER	0
#define TTRACE_NOTE_GET_FILTER	1
#define TTRACE_NOTE_SET_TRIGGER 2
#define TTRACE_NOTE_GET_TRIGGER 3

/* The wake-up's bit (abi/trace.h, THE WAKE-UP) for a SAVE trigger's firing: above every CPU's. */
#define TTRACE_WAKE_TRIGGER (1ull << 63)

struct ttrace_trigger {
	uint32_t action;   /* TTRACE_TRIG_* */
	uint32_t n;	   /* instructions in insn[], 1..TTRACE_PRED_INSNS_MAX; 0 with NONE */
	uint64_t fired;	   /* GET: the times the predicate held; zero for SET */
	uint64_t first_ns; /* GET: when it first fired, ns since boot; 0: not yet. Zero for SET */
	uint64_t reserved; /* zero */
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
};

_Static_assert(sizeof(struct ttrace_trigger) == 32 + 40 * TTRACE_PRED_INSNS_MAX, "abi");
_Static_assert(offsetof(struct ttrace_trigger, fired) == 8, "abi");
_Static_assert(offsetof(struct ttrace_trigger, first_ns) == 16, "abi");
_Static_assert(offsetof(struct ttrace_trigger, insn) == 32, "abi");

#endif
