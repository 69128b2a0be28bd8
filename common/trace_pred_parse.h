/*
 * trace_pred_parse: a filter's text compiled into the bytecode of
 * abi/trace_pred.h for one kind. One parser for every side: traced
 * compiles what it sets in the kernel, the shell checks a line before it
 * sends it, so a person sees the error with its place, and the host tests
 * run both. Pure code on the kind table: no allocation.
 *
 * The language, loosest first:
 *   pred    := and ( "||" and )*
 *   and     := unary ( "&&" unary )*
 *   unary   := "!" unary | "(" pred ")" | FIELD OP VALUE
 *   OP      := == != < <= > >= &
 *   FIELD   := pid tid cpu ctx comm, or a word of the kind by the name its
 *              format gives (abi/trace_kinds.def: result, prev_state, ...)
 *   VALUE   := a number (decimal, -decimal, 0xhex), a name from the
 *              word's list of values (cow, blocked, -ETIMEDOUT; for ctx:
 *              kernel irq syscall trap user), or "a string" (comm only)
 * A word of format d orders signed, every other field unsigned; comm
 * takes only == and != with a string; an s word (a string reference)
 * compares with nothing.
 */
#ifndef SPOOR_COMMON_TRACE_PRED_PARSE_H
#define SPOOR_COMMON_TRACE_PRED_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace_pred.h"

#define TTRACE_PRED_TEXT_MAX 200 /* bytes of a filter's text */
#define TTRACE_PRED_NEST_MAX 8	 /* parentheses and ! within each other */

/* A compiled filter. */
struct ttrace_pred_prog {
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
	uint32_t n;
};

/*
 * Flags: LENIENT compiles a comparison on a field kind lacks (but some
 * kind has) as false, for a filter set on a whole category: `syscall if
 * result < 0` keeps no syscall_entry. Without it, such a field is an
 * error.
 */
#define TTRACE_PRED_LENIENT 1u

/*
 * Compiles text for kind into *out. Returns 0, or -EINVAL with why set
 * to one line (NUL-terminated, at most why_size bytes) that names the
 * place, counted from 1: "at 8: unknown field 'rsult'". Errors: syntax,
 * an unknown field or value name, a field the kind lacks (without
 * LENIENT), an op the field's type does not take, a value out of the
 * field's range, text longer than TTRACE_PRED_TEXT_MAX, more than
 * TTRACE_PRED_INSNS_MAX instructions or TTRACE_PRED_NEST_MAX levels.
 * What it returns passes ttrace_pred_verify() for kind.
 */
int ttrace_pred_compile(const char *text, uint16_t kind, uint32_t flags,
			struct ttrace_pred_prog *out, char *why, size_t why_size);

#endif
