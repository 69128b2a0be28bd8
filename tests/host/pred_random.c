/*
 * pred_random: the host tests' random filter programs (pred_random.h).
 */
#include "pred_random.h"

#include <stdbool.h>
#include <string.h>

#include "abi/trace.h"
#include "common/trace_pred.h"
#include "rand.h"

/* Values where the folded tests turn: the ends of each width and of the signed range. */
static const uint64_t edges[] = {0,
				 1,
				 2,
				 7,
				 0xff,
				 0x100,
				 0xffff,
				 0x10000,
				 0xffffffffull,
				 0x100000000ull,
				 0x7fffffffffffffffull,
				 0x8000000000000000ull,
				 0x8000000000000001ull,
				 0xfffffffffffffffeull,
				 0xffffffffffffffffull};
#define EDGES (sizeof(edges) / sizeof(edges[0]))

static const char *const names[] = {
    "",	       "a",	   "init",	"memtest",	    "memtest2",
    "tracegn", "tracegen", "tracegen1", "0123456789abcdef", "0123456789abcdefghijklmnopqrstu"};
#define NAMES (sizeof(names) / sizeof(names[0]))

uint64_t pred_random_value(uint64_t *state)
{
	uint64_t r = test_random(state);

	switch (r % 4) {
	case 0:
		return test_random(state);
	case 1:
		return edges[(r >> 8) % EDGES] - 1;
	default:
		return edges[(r >> 8) % EDGES];
	}
}

/* A comparison of kind's that ttrace_pred_verify() accepts. */
static struct ttrace_pred_insn leaf(uint16_t kind, uint64_t *state)
{
	static const uint8_t number_ops[] = {TTRACE_PRED_EQ, TTRACE_PRED_NE, TTRACE_PRED_LT,
					     TTRACE_PRED_LE, TTRACE_PRED_GT, TTRACE_PRED_GE,
					     TTRACE_PRED_BIT};
	static const uint8_t signed_ops[] = {TTRACE_PRED_EQ,  TTRACE_PRED_NE,  TTRACE_PRED_SLT,
					     TTRACE_PRED_SLE, TTRACE_PRED_SGT, TTRACE_PRED_SGE,
					     TTRACE_PRED_BIT};
	static const uint8_t commons[] = {TTRACE_PRED_F_PID, TTRACE_PRED_F_TID, TTRACE_PRED_F_CPU,
					  TTRACE_PRED_F_CTX, TTRACE_PRED_F_COMM};
	struct ttrace_pred_insn i = {0};
	uint32_t words = 0;

	while (words < TTRACE_HEAD_WORDS && ttrace_pred_word_format(kind, words)) {
		words++;
	}
	uint64_t r = test_random(state);
	uint32_t pick = (uint32_t)(r % (words + sizeof(commons)));
	i.field = pick < words ? (uint8_t)pick : commons[pick - words];
	if (i.field == TTRACE_PRED_F_COMM) {
		i.op = r >> 8 & 1 ? TTRACE_PRED_STR_EQ : TTRACE_PRED_STR_NE;
		strcpy(i.str, names[(r >> 9) % NAMES]);
		return i;
	}
	bool is_signed = i.field < words && ttrace_pred_word_format(kind, i.field) == 'd';
	i.op = (is_signed ? signed_ops : number_ops)[(r >> 8) % sizeof(number_ops)];
	i.value = pred_random_value(state);
	return i;
}

uint32_t pred_random_program(uint16_t kind, uint64_t *state, struct ttrace_pred_insn *p)
{
	uint32_t n = 0, depth = 0;
	uint32_t want = 1 + (uint32_t)(test_random(state) % TTRACE_PRED_INSNS_MAX);

	/* room to fold what is pending into one: depth - 1 joins after the last push */
	while (n + depth < want + 1 && n < TTRACE_PRED_INSNS_MAX) {
		uint64_t r = test_random(state);

		if (depth >= 2 && r % 3 == 0) {
			p[n++] = (struct ttrace_pred_insn){.op = r & 8 ? TTRACE_PRED_AND
								       : TTRACE_PRED_OR};
			depth--;
		} else if (depth >= 1 && r % 7 == 1) {
			p[n++] = (struct ttrace_pred_insn){.op = TTRACE_PRED_NOT};
		} else if (depth < TTRACE_PRED_DEPTH_MAX && n + depth + 1 < TTRACE_PRED_INSNS_MAX) {
			p[n++] = r % 11 == 2
				     ? (struct ttrace_pred_insn){.op = r & 16 ? TTRACE_PRED_TRUE
									      : TTRACE_PRED_FALSE}
				     : leaf(kind, state);
			depth++;
		} else {
			break;
		}
	}
	while (depth > 1) {
		p[n++] = (struct ttrace_pred_insn){.op = TTRACE_PRED_AND};
		depth--;
	}
	if (!depth) {
		p[n++] = leaf(kind, state);
	}
	return n;
}

const char *pred_random_name(uint64_t *state)
{
	return test_random(state) % 5 ? names[test_random(state) % NAMES] : NULL;
}
