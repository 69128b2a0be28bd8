/*
 * hotspot [SECONDS]: burns SECONDS (default 3) of CPU in one function,
 * hot(), reached through two others, outer() -> middle() -> hot(), for
 * the profiler's tests: its report must put hot() on top, and its folded
 * stacks must have outer and middle below it.
 * hotspot rounds N: N calls of middle(), timed by the TSC, for make
 * bench's cost of profiling (under -icount the TSC counts instructions).
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_SECOND 1000000000ull
#define TURNS	      200000		     /* loop turns between looks at the clock */
#define LCG_MUL	      6364136223846793005ull /* Knuth's MMIX generator: busy work */
#define LCG_ADD	      1442695040888963407ull

/* One call out of hot(), before its loop. */
static __attribute__((noinline)) uint64_t settle(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/*
 * noinline: each must keep its own frame for the stacks to show it. hot()
 * calls settle() first so that it is no leaf and its frame is made before
 * the loop: GCC gives a leaf no frame, and a frame-pointer walk from
 * inside one misses its caller (as perf's does).
 */
static __attribute__((noinline)) uint64_t hot(uint64_t x)
{
	x = settle(x);
	for (int i = 0; i < TURNS; i++) {
		x = x * LCG_MUL + LCG_ADD;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static __attribute__((noinline)) uint64_t middle(uint64_t x)
{
	x = hot(x);
	__asm__ volatile("" : "+r"(x)); /* no tail call: middle keeps its frame */
	return x;
}

static __attribute__((noinline)) uint64_t outer(uint64_t deadline_ns)
{
	uint64_t x = 1;

	while ((uint64_t)sys_clock_ns() < deadline_ns) {
		x = middle(x);
	}
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* `hotspot rounds N`: the TSC's ticks over N rounds of middle(). */
static int rounds(const char *arg)
{
	long n = strtol(arg, NULL, 10);
	uint64_t x = 1;

	if (n < 1 || n > 1000000) {
		printf("usage: hotspot rounds N (1..1000000)\n");
		return 1;
	}
	uint64_t start = __builtin_ia32_rdtsc();
	for (long i = 0; i < n; i++) {
		x = middle(x);
	}
	uint64_t ticks = __builtin_ia32_rdtsc() - start;
	printf("hotspot: %ld rounds in %lu cycles (%lu)\n", n, (unsigned long)ticks,
	       (unsigned long)(x & 1));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "rounds")) {
		return rounds(argv[2]);
	}
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : 3;

	if (argc > 2 || seconds < 1 || seconds > 60) {
		printf("usage: hotspot [SECONDS 1..60]\n");
		return 1;
	}
	uint64_t x = outer((uint64_t)sys_clock_ns() + (uint64_t)seconds * NS_PER_SECOND);
	printf("hotspot: done (%lu)\n", (unsigned long)(x & 1));
	return 0;
}
