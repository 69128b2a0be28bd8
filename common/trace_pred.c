/*
 * trace_pred: checks and runs the filters' bytecode (trace_pred.h). The
 * check walks the program once, keeping the stack's depth, so that the
 * run needs no test of its own: a program that passed never underflows,
 * overflows or reads a field its kind lacks.
 */
#include "common/trace_pred.h"

#include "abi/errno.h"
#include "common/trace_names.h"

char ttrace_pred_word_format(uint16_t kind, uint32_t i)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(kind);
	struct ttrace_arg arg;

	if (!k) {
		return 0;
	}
	const char *spec = k->args;
	for (uint32_t at = 0; ttrace_arg_next(&spec, &arg) == 1; at++) {
		if (at == i) {
			return arg.format;
		}
	}
	return 0;
}

static bool is_compare(uint8_t op)
{
	return op >= TTRACE_PRED_EQ && op <= TTRACE_PRED_STR_NE;
}

static bool is_signed(uint8_t op)
{
	return op >= TTRACE_PRED_SLT && op <= TTRACE_PRED_SGE;
}

static bool is_ordered(uint8_t op)
{
	return op >= TTRACE_PRED_LT && op <= TTRACE_PRED_GE;
}

static bool all_zero(const char *b, uint32_t n)
{
	for (uint32_t at = 0; at < n; at++) {
		if (b[at]) {
			return false;
		}
	}
	return true;
}

/* Whether comparison i fits its field: the field exists for kind and has the op's type. */
static bool compare_fits(uint16_t kind, const struct ttrace_pred_insn *i)
{
	bool str_op = i->op == TTRACE_PRED_STR_EQ || i->op == TTRACE_PRED_STR_NE;

	if (i->field == TTRACE_PRED_F_COMM) {
		/* the string must end within its bytes: the run compares up to the NUL */
		return str_op && !i->str[TTRACE_PRED_STR_BYTES - 1];
	}
	if (str_op ||
	    !all_zero(i->str + sizeof(uint64_t), TTRACE_PRED_STR_BYTES - sizeof(uint64_t))) {
		return false; /* a number's instruction carries nothing past its value */
	}
	if (i->field >= TTRACE_PRED_F_PID && i->field <= TTRACE_PRED_F_CTX) {
		return !is_signed(i->op);
	}
	if (i->field >= TTRACE_HEAD_WORDS) {
		return false;
	}
	char f = ttrace_pred_word_format(kind, i->field);
	if (!f) {
		return false; /* a word the kind's format does not name */
	}
	/* ordering follows the word's sign: a d word orders signed, any other unsigned */
	return f == 'd' ? !is_ordered(i->op) : !is_signed(i->op);
}

int ttrace_pred_verify(uint16_t kind, const struct ttrace_pred_insn *p, uint32_t n)
{
	uint32_t depth = 0;

	if (!ttrace_kind_info(kind) || !n || n > TTRACE_PRED_INSNS_MAX) {
		return -EINVAL;
	}
	for (uint32_t at = 0; at < n; at++) {
		const struct ttrace_pred_insn *i = &p[at];

		if (i->reserved || i->reserved1) {
			return -EINVAL;
		}
		if (is_compare(i->op)) {
			if (!compare_fits(kind, i) || ++depth > TTRACE_PRED_DEPTH_MAX) {
				return -EINVAL;
			}
			continue;
		}
		/* the other ops use neither field nor constant: both must be zero */
		if (i->field || !all_zero(i->str, TTRACE_PRED_STR_BYTES)) {
			return -EINVAL;
		}
		switch (i->op) {
		case TTRACE_PRED_AND:
		case TTRACE_PRED_OR:
			if (depth < 2) {
				return -EINVAL;
			}
			depth--;
			break;
		case TTRACE_PRED_NOT:
			if (depth < 1) {
				return -EINVAL;
			}
			break;
		case TTRACE_PRED_TRUE:
		case TTRACE_PRED_FALSE:
			if (++depth > TTRACE_PRED_DEPTH_MAX) {
				return -EINVAL;
			}
			break;
		default:
			return -EINVAL;
		}
	}
	return depth == 1 ? 0 : -EINVAL;
}

/* The numeric field f of ev (a verified program's: it exists). */
static uint64_t field_of(const struct ttrace_pred_event *ev, uint8_t f)
{
	switch (f) {
	case TTRACE_PRED_F_PID:
		return ev->pid;
	case TTRACE_PRED_F_TID:
		return ev->tid;
	case TTRACE_PRED_F_CPU:
		return ev->cpu;
	case TTRACE_PRED_F_CTX:
		return ev->ctx;
	default:
		return ev->data[f - TTRACE_PRED_F_DATA];
	}
}

/* Whether comm is str: equal up to str's NUL (which the check put within its bytes). */
static bool same_name(const char *comm, const char *str)
{
	const char *name = comm ? comm : "";
	uint32_t b = 0;

	while (str[b] && name[b] == str[b]) {
		b++;
	}
	return !str[b] && !name[b];
}

static bool compare(const struct ttrace_pred_insn *i, const struct ttrace_pred_event *ev)
{
	if (i->op == TTRACE_PRED_STR_EQ || i->op == TTRACE_PRED_STR_NE) {
		return same_name(ev->comm, i->str) == (i->op == TTRACE_PRED_STR_EQ);
	}
	uint64_t v = field_of(ev, i->field);
	int64_t s = (int64_t)v, c = (int64_t)i->value;

	switch (i->op) {
	case TTRACE_PRED_EQ:
		return v == i->value;
	case TTRACE_PRED_NE:
		return v != i->value;
	case TTRACE_PRED_LT:
		return v < i->value;
	case TTRACE_PRED_LE:
		return v <= i->value;
	case TTRACE_PRED_GT:
		return v > i->value;
	case TTRACE_PRED_GE:
		return v >= i->value;
	case TTRACE_PRED_SLT:
		return s < c;
	case TTRACE_PRED_SLE:
		return s <= c;
	case TTRACE_PRED_SGT:
		return s > c;
	case TTRACE_PRED_SGE:
		return s >= c;
	default: /* BIT */
		return v & i->value;
	}
}

bool ttrace_pred_eval(const struct ttrace_pred_insn *p, uint32_t n,
		      const struct ttrace_pred_event *ev)
{
	bool stack[TTRACE_PRED_DEPTH_MAX] = {false}; /* a verified program never reads one unset */
	uint32_t depth = 0;

	for (uint32_t at = 0; at < n; at++) {
		const struct ttrace_pred_insn *i = &p[at];

		switch (i->op) {
		case TTRACE_PRED_AND:
			depth--;
			stack[depth - 1] = stack[depth - 1] && stack[depth];
			break;
		case TTRACE_PRED_OR:
			depth--;
			stack[depth - 1] = stack[depth - 1] || stack[depth];
			break;
		case TTRACE_PRED_NOT:
			stack[depth - 1] = !stack[depth - 1];
			break;
		case TTRACE_PRED_TRUE:
		case TTRACE_PRED_FALSE:
			stack[depth++] = i->op == TTRACE_PRED_TRUE;
			break;
		default:
			stack[depth++] = compare(i, ev);
			break;
		}
	}
	return stack[0];
}
