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
 *              kernel irq syscall trap user), or for comm a "string"
 *              or a bare name (memtest: the shell's words lose their
 *              quotes)
 * A word of format d orders signed, every other field unsigned; comm
 * takes only == and != with a string; an s word (a string reference)
 * compares with nothing.
 */
#ifndef SPOOR_COMMON_TRACE_PRED_PARSE_H
#define SPOOR_COMMON_TRACE_PRED_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace_pred.h"

#define TTRACE_PRED_NEST_MAX 8	 /* parentheses and ! within each other */
#define TTRACE_PRED_WHY_MAX  256 /* bytes of the longest why the parser writes, with its NUL */

/* A compiled filter. */
struct ttrace_pred_prog {
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
	uint32_t n;
};

/*
 * A filter set on a whole category (`trace on syscall if result < 0`)
 * is compiled for each kind of it with among, the kinds it is set on: a
 * comparison on a field kind lacks compiles as false (so that filter
 * keeps no syscall_entry), and only a field none of among has is an
 * error. With among 0, a field kind lacks is an error.
 *
 * Compiles text for kind into *out. Returns 0, or -EINVAL with why set
 * to one line (NUL-terminated, at most why_size bytes) that names the
 * place, counted from 1: "at 1: unknown field 'rsult'". Errors: syntax,
 * an unknown field or value name, a field the kind lacks (above), an op
 * the field's type does not take, a value out of the field's range,
 * text longer than TTRACE_PRED_TEXT_MAX, more than
 * TTRACE_PRED_INSNS_MAX instructions or TTRACE_PRED_NEST_MAX levels.
 * What it returns passes ttrace_pred_verify() for kind.
 */
int ttrace_pred_compile(const char *text, uint16_t kind, uint64_t among,
			struct ttrace_pred_prog *out, char *why, size_t why_size);

/*
 * The kinds of a list of targets, kinds and categories by name
 * separated by commas ("syscall,mem_pf"; "all"), into *kinds (bit k for
 * kind k) and *cats (the categories they are in, to enable). Returns 0,
 * or -EINVAL with why set to one line naming the first unknown word.
 */
int ttrace_pred_targets(const char *list, uint64_t *kinds, uint64_t *cats, char *why,
			size_t why_size);

/* Compiles text for every kind of kinds (among = kinds when more than one), as a check: 0 or
 * -EINVAL and why. */
int ttrace_pred_check(const char *text, uint64_t kinds, char *why, size_t why_size);

/*
 * The words of a predicate as a shell line splits them (argv[0..argc),
 * the words after `if`), joined by one space into buf (size bytes, at
 * least TTRACE_PRED_TEXT_MAX + 1). Returns 0, or -EINVAL with why set as
 * ttrace_pred_compile() says text longer than TTRACE_PRED_TEXT_MAX, the
 * place where it passes the limit included.
 */
int ttrace_pred_join(int argc, char *const argv[], char *buf, size_t size, char *why,
		     size_t why_size);

#endif
