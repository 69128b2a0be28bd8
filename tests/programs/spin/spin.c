/*
 * spin N [SECONDS]: N threads that keep their CPUs busy for SECONDS
 * (default 30) or until the process is killed, for watching the scheduler
 * spread work over the CPUs (ps, cpus). The main thread only waits.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS_MAX	(PROC_THREADS_MAX - 1) /* and the main thread */
#define DEFAULT_SECONDS 30
#define NS_PER_SECOND	1000000000ull
#define CLOCK_EVERY	100000		       /* loop turns between looks at the clock */
#define LCG_MUL		6364136223846793005ull /* Knuth's MMIX generator: busy work */
#define LCG_ADD		1442695040888963407ull

static uint64_t deadline_ns;

/* Busy work the compiler cannot remove; the clock is read now and then, not every turn. */
static int spin(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;

	while ((uint64_t)sys_clock_ns() < deadline_ns) {
		for (int i = 0; i < CLOCK_EVERY; i++) {
			x = x * LCG_MUL + LCG_ADD;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return 0;
}

/* A whole number in [min, max] from all of s, or -1. */
static long parse(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end == s || *end || v < min || v > max ? -1 : v;
}

int main(int argc, char **argv)
{
	int tids[THREADS_MAX];
	long n = argc > 1 ? parse(argv[1], 1, THREADS_MAX) : -1;
	long seconds = argc > 2 ? parse(argv[2], 1, 24 * 3600) : DEFAULT_SECONDS;

	if (argc > 3 || n < 0 || seconds < 0) {
		printf("usage: spin N [SECONDS]: N busy threads (1..%d) for SECONDS (default %d)\n",
		       THREADS_MAX, DEFAULT_SECONDS);
		return 2;
	}
	deadline_ns = (uint64_t)sys_clock_ns() + (uint64_t)seconds * NS_PER_SECOND;
	for (long i = 0; i < n; i++) {
		tids[i] = thread_spawn(spin, (void *)(uintptr_t)(i + 1), 0);
		if (tids[i] < 0) {
			printf("spin: thread %ld: %s\n", i, strerror(-tids[i]));
			return 1;
		}
	}
	printf("spin: %ld threads started\n", n);
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		thread_join(tids[i], NULL);
	}
	return 0;
}
