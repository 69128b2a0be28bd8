/*
 * edges CHECK: limits of the system calls that used to pass silently.
 *   sleep-max  a thread that sleeps UINT64_MAX ns is still asleep after
 *              WATCH_NS (the deadline saturates instead of wrapping):
 *              "edges: sleep-max ok (still asleep after 300 ms)". The
 *              sleeper and the watcher share CPU 0, and the watch starts
 *              once the sleeper is seen asleep: a wrapped deadline, in the
 *              past, is due at CPU 0's first timer interrupt after that,
 *              before the watcher's own, whatever the host's load.
 *   mute PROG  starts PROG with no capability at all and waits for it:
 *              without the console capability nothing it does may reach
 *              the console. Prints "edges: mute begin" and "edges: mute
 *              end (status S)" around it; the test checks nothing came
 *              between them.
 * Prints one line; exit status 1 when the check fails.
 */
#include <spoor.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WATCH_NS    300000000ull
#define NS_PER_MS   1000000ull
#define WATCH_CPU   0
#define POLL_NS	    1000000ull	   /* between looks at the sleeper's state */
#define THREADS_MAX 256		   /* threads sys_thread_list reports at most here */
#define ASLEEP_NS   30000000000ull /* for the sleeper to get to its sleep at all */

static int woke; /* [a] the sleeper came back */

static int sleeper(void *arg)
{
	(void)arg;
	if (sys_thread_set_cpu(WATCH_CPU)) {
		return 1;
	}
	sys_sleep_ns(UINT64_MAX);
	__atomic_store_n(&woke, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Whether thread tid of this process is sleeping (waiting for time). */
static bool sleeping(int tid)
{
	static struct thread_info threads[THREADS_MAX];
	long n = sys_thread_list(threads, THREADS_MAX);
	uint32_t pid = (uint32_t)sys_getpid();

	for (long i = 0; i < n; i++) {
		if (threads[i].pid == pid && threads[i].tid == (uint32_t)tid) {
			return threads[i].state == THREAD_SLEEPING;
		}
	}
	return false;
}

static int sleep_max(void)
{
	long err = sys_thread_set_cpu(WATCH_CPU);
	int tid = err ? (int)err : thread_spawn(sleeper, NULL, 0);

	if (tid < 0) {
		printf("edges: sleep-max: thread_set_cpu or thread_spawn: %s\n", strerror(-tid));
		return 1;
	}
	uint64_t end = (uint64_t)sys_clock_ns() + ASLEEP_NS;
	/* acquire: pairs with the sleeper's release */
	while (!sleeping(tid) && !__atomic_load_n(&woke, __ATOMIC_ACQUIRE)) {
		if ((uint64_t)sys_clock_ns() > end) {
			printf("edges: sleep-max FAIL: the sleeper never slept\n");
			return 1;
		}
		sys_sleep_ns(POLL_NS);
	}
	sys_sleep_ns(WATCH_NS);
	/* acquire: pairs with the sleeper's release */
	if (__atomic_load_n(&woke, __ATOMIC_ACQUIRE) || !sleeping(tid)) {
		printf("edges: sleep-max FAIL: a sleep of UINT64_MAX ns ended within %llu ms\n",
		       WATCH_NS / NS_PER_MS);
		return 1;
	}
	printf("edges: sleep-max ok (still asleep after %llu ms)\n", WATCH_NS / NS_PER_MS);
	return 0; /* exit ends the sleeper with the process */
}

static int mute(const char *prog)
{
	struct spawn_args sa = {.name = (uint64_t)(uintptr_t)prog};
	int64_t status = -1;

	printf("edges: mute begin\n");
	long slot = sys_spawn(&sa);
	if (slot < 0) {
		printf("edges: mute: spawn %s: %s\n", prog, strerror((int)-slot));
		return 1;
	}
	long err = sys_wait((int)slot, &status, TIMEOUT_FOREVER);
	printf("edges: mute end (status %lld)\n", err ? (long long)err : (long long)status);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "sleep-max")) {
		return sleep_max();
	}
	if (argc == 3 && !strcmp(argv[1], "mute")) {
		return mute(argv[2]);
	}
	printf("edges: usage: edges sleep-max | mute PROG\n");
	return 2;
}
