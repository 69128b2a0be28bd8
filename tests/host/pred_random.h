/*
 * pred_random: random filter programs for the host tests of the
 * filters' forms (test_trace_pred_jump.c, test_pred_code.c): valid by
 * construction mostly, with constants at the edges where the folded
 * tests turn.
 */
#ifndef SPOOR_TESTS_HOST_PRED_RANDOM_H
#define SPOOR_TESTS_HOST_PRED_RANDOM_H

#include <stdint.h>

#include "abi/trace_pred.h"

/* A value: random, or an edge of a width or of the signed range, or one below. */
uint64_t pred_random_value(uint64_t *state);

/* A process name, or NULL (no name) one time in five. */
const char *pred_random_name(uint64_t *state);

/*
 * A random program for kind into p (TTRACE_PRED_INSNS_MAX room): its
 * length. ttrace_pred_verify() may still refuse one that joined too deep.
 */
uint32_t pred_random_program(uint16_t kind, uint64_t *state, struct ttrace_pred_insn *p);

#endif
