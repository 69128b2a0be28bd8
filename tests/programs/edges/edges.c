/*
 * edges CHECK: limits of the system calls that used to pass silently.
 *   sleep-max  a thread that sleeps UINT64_MAX ns is still asleep after
 *              WATCH_NS (the deadline saturates instead of wrapping):
 *              "edges: sleep-max ok (still asleep after 300 ms)"
 * Prints one line; exit status 1 when the check fails.
 */
#include <spoor.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WATCH_NS 300000000ull
#define NS_PER_MS 1000000ull

static int woke; /* [a] the sleeper came back */

static int sleeper(void *arg)
{
	(void)arg;
	sys_sleep_ns(UINT64_MAX);
	__atomic_store_n(&woke, 1, __ATOMIC_RELEASE);
	return 0;
}

static int sleep_max(void)
{
	int tid = thread_spawn(sleeper, NULL, 0);

	if (tid < 0) {
		printf("edges: sleep-max: thread_spawn: %s\n", strerror(-tid));
		return 1;
	}
	sys_sleep_ns(WATCH_NS);
	/* acquire: pairs with the sleeper's release */
	if (__atomic_load_n(&woke, __ATOMIC_ACQUIRE)) {
		printf("edges: sleep-max FAIL: a sleep of UINT64_MAX ns ended within %llu ms\n",
		       WATCH_NS / NS_PER_MS);
		return 1;
	}
	printf("edges: sleep-max ok (still asleep after %llu ms)\n", WATCH_NS / NS_PER_MS);
	return 0; /* exit ends the sleeper with the process */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "sleep-max")) {
		return sleep_max();
	}
	printf("edges: usage: edges sleep-max\n");
	return 2;
}
