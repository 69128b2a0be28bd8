/*
 * rand: the host tests' pseudo-random numbers, xorshift64: fast, and the
 * same sequence from the same seed, so a failing run replays exactly. A
 * state is a seed other than 0; threads keep one each.
 */
#ifndef SPOOR_TESTS_HOST_RAND_H
#define SPOOR_TESTS_HOST_RAND_H

#include <stdint.h>

/* Advances *state and returns its new value (never 0 from a seed other than 0). */
static inline uint64_t test_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
