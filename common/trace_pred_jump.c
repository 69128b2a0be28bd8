/*
 * trace_pred_jump: lowers a verified program into terms with forward
 * jumps (trace_pred_jump.h). The program is postfix; read from its last
 * instruction back to its first it is prefix, the root first and each
 * operator's right operand before its left. So the lowering walks it
 * backwards with a stack of the targets each operand still to come must
 * jump to (where to go when it holds, where when it does not), and
 * places each term below the ones placed before it: every target is a
 * term already placed, at a higher offset, or a verdict.
 *
 * The left operand of a && goes on to the right one when it holds, and
 * of a || when it does not: to the right operand's first term, which is
 * known only once the right operand is lowered. Its targets are pushed
 * with PENDING there, and filled in as they are popped, from the first
 * term of what was lowered last (the right operand, lowered just before;
 * the first term of a subtree is its leftmost leaf's, lowered last).
 */
#include "common/trace_pred_jump.h"

#include "abi/trace.h"

#define PENDING UINT16_MAX /* a target not known yet: the right operand's first term */
#define SIGN	(1ull << 63)

_Static_assert(TTRACE_PRED_REJECT < PENDING, "PENDING is no target");

/* Where an operand jumps: [1] when it holds, [0] when it does not. */
struct targets {
	uint16_t to[2];
};

/* Where a term reads: its field, at byte at of the record, bytes wide. */
struct source {
	uint16_t at;
	uint8_t field;
	uint8_t bytes;
};

/* Places a term below those placed so far, which jumps as go says: its target. */
static uint16_t place(struct ttrace_pred_jumps *j, uint32_t *below, struct source from,
		      uint64_t mask, uint64_t sub, uint64_t lim, struct targets go)
{
	*below -= 1;
	j->term[*below] = (struct ttrace_pred_term){.mask = mask,
						    .sub = sub,
						    .lim = lim,
						    .at = from.at,
						    .next = {go.to[0], go.to[1]},
						    .field = from.field,
						    .bytes = from.bytes};
	return (uint16_t)TTRACE_PRED_TERM_AT(*below);
}

static struct targets swapped(struct targets go)
{
	return (struct targets){{go.to[1], go.to[0]}};
}

/* comm is str (not, for STR_NE): a term for each word up to str's NUL; the first's index. */
static uint16_t lower_comm(const struct ttrace_pred_insn *i, uint16_t at,
			   struct ttrace_pred_jumps *j, uint32_t *below, struct targets go)
{
	uint32_t len = 0;

	while (i->str[len]) {
		len++; /* the check put a NUL within the string's bytes */
	}
	if (i->op == TTRACE_PRED_STR_NE) {
		go = swapped(go);
	}
	/* the words from the last, which holds the NUL: only its bytes up to the NUL count */
	uint32_t last = len / 8;
	uint64_t mask = len % 8 == 7 ? ~0ull : (1ull << (len % 8 + 1) * 8) - 1;
	uint16_t first = go.to[1];
	for (uint32_t w = last + 1; w-- > 0;) {
		uint64_t word = 0;

		for (uint32_t b = 0; b < 8 && w * 8 + b < len; b++) {
			word |= (uint64_t)(uint8_t)i->str[w * 8 + b] << 8 * b;
		}
		struct source from = {(uint16_t)(at + w * 8), TTRACE_PRED_F_COMM, 8};

		first = place(j, below, from, mask, word, 1, (struct targets){{go.to[0], first}});
		mask = ~0ull;
	}
	return first;
}

/*
 * Comparison i, whose field is at and bytes wide in the record: its terms
 * placed, jumping as go says; returns where it starts (a verdict's target
 * for a comparison that always or never holds).
 */
static uint16_t lower_compare(const struct ttrace_pred_insn *i, uint16_t at, uint8_t bytes,
			      struct ttrace_pred_jumps *j, uint32_t *below, struct targets go)
{
	uint64_t width = bytes >= 8 ? ~0ull : (1ull << 8 * bytes) - 1;
	uint64_t c = i->value, sub = 0, lim = c, mask = width;

	switch (i->op) {
	case TTRACE_PRED_STR_EQ:
	case TTRACE_PRED_STR_NE:
		return lower_comm(i, at, j, below, go);
	case TTRACE_PRED_NE: /* not EQ */
		go = swapped(go);
		/* fall through */
	case TTRACE_PRED_EQ:
		sub = c;
		lim = 1;
		break;
	case TTRACE_PRED_GE: /* not LT */
		go = swapped(go);
		/* fall through */
	case TTRACE_PRED_LT:
		break;
	case TTRACE_PRED_GT: /* not LE */
		go = swapped(go);
		/* fall through */
	case TTRACE_PRED_LE: /* < c + 1, which for the largest c always holds */
		if (c == ~0ull) {
			return go.to[1];
		}
		lim = c + 1;
		break;
	case TTRACE_PRED_SGE: /* not SLT */
		go = swapped(go);
		/* fall through */
	case TTRACE_PRED_SLT: /* signed: both sides moved by 2^63 keep their order unsigned */
		sub = SIGN;
		lim = c ^ SIGN;
		break;
	case TTRACE_PRED_SGT: /* not SLE */
		go = swapped(go);
		/* fall through */
	case TTRACE_PRED_SLE: /* SLT c + 1, which for the largest c always holds */
		if (c == ~SIGN) {
			return go.to[1];
		}
		sub = SIGN;
		lim = (c + 1) ^ SIGN;
		break;
	default: /* BIT: (word & c) != 0, not (word & c) < 1 */
		go = swapped(go);
		mask = width & c;
		lim = 1;
		break;
	}
	return place(j, below, (struct source){at, i->field, bytes}, mask, sub, lim, go);
}

void ttrace_pred_lower(const struct ttrace_pred_insn *p, uint32_t n,
		       const struct ttrace_pred_layout *l, struct ttrace_pred_jumps *j)
{
	/* a verified program's operands pending never outnumber its instructions */
	struct targets stack[TTRACE_PRED_INSNS_MAX + 1];
	uint32_t depth = 0, below = TTRACE_PRED_TERMS;
	uint16_t last = TTRACE_PRED_REJECT; /* the first term of what was lowered last */

	*j = (struct ttrace_pred_jumps){0};
	stack[depth++] = (struct targets){{TTRACE_PRED_REJECT, TTRACE_PRED_KEEP}};
	for (uint32_t k = n; k-- > 0;) {
		const struct ttrace_pred_insn *i = &p[k];
		struct targets go = stack[--depth];

		for (int side = 0; side < 2; side++) {
			go.to[side] = go.to[side] == PENDING ? last : go.to[side];
		}
		switch (i->op) {
		case TTRACE_PRED_AND: /* the left holding goes on to the right */
			stack[depth++] = (struct targets){{go.to[0], PENDING}};
			stack[depth++] = go;
			break;
		case TTRACE_PRED_OR: /* the left not holding goes on to the right */
			stack[depth++] = (struct targets){{PENDING, go.to[1]}};
			stack[depth++] = go;
			break;
		case TTRACE_PRED_NOT:
			stack[depth++] = swapped(go);
			break;
		case TTRACE_PRED_TRUE:
		case TTRACE_PRED_FALSE:
			last = go.to[i->op == TTRACE_PRED_TRUE];
			break;
		default:
			j->reads_comm |= i->field == TTRACE_PRED_F_COMM;
			last = lower_compare(i, l->at[i->field], l->bytes[i->field], j, &below, go);
			break;
		}
	}
	if (last >= TTRACE_PRED_KEEP) {
		/* a constant program: one term that always holds (0 < 1) or never (0 < 0) */
		struct source pid = {l->at[TTRACE_PRED_F_PID], TTRACE_PRED_F_PID,
				     l->bytes[TTRACE_PRED_F_PID]};

		last = place(j, &below, pid, 0, 0, last == TTRACE_PRED_KEEP,
			     (struct targets){{TTRACE_PRED_REJECT, TTRACE_PRED_KEEP}});
	}
	j->entry = last;
}
