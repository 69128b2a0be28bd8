/*
 * tracegen N [CPU [RATE]]: emits exactly N test_tick events through the
 * trace_test syscall (abi/trace.h), on CPU if given, at most RATE a
 * second if given (in batches of a millisecond's worth), and prints how
 * many the test category let through and what each took (make bench
 * compares them, tracking on and off):
 *   tracegen: emitted 1000 of 1000 events, 412 ns each
 * A workload whose count tests know, for exact accounting. seq restarts
 * at 0 each syscall, so the k-th event (from 0) has seq k modulo the
 * batch (TTRACE_TEST_MAX, or RATE / 1000), and a reader can check every
 * payload and where each loss was.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/trace.h"

int main(int argc, char **argv)
{
	char *end;
	unsigned long long n = argc > 1 ? strtoull(argv[1], &end, 10) : 0;
	unsigned long long emitted = 0, rate = 0, batch = TTRACE_TEST_MAX;

	if (argc < 2 || argc > 4 || *end || argv[1][0] < '0' || argv[1][0] > '9') {
		printf("tracegen: usage: tracegen N [CPU [RATE]]\n");
		return 2;
	}
	if (argc == 4) {
		rate = strtoull(argv[3], &end, 10);
		if (*end || !rate || argv[3][0] < '0' || argv[3][0] > '9') {
			printf(
			    "tracegen: usage: tracegen N [CPU [RATE]] (RATE: events a second)\n");
			return 2;
		}
		batch = rate / 1000 ? rate / 1000 : 1;
		batch = batch < TTRACE_TEST_MAX ? batch : TTRACE_TEST_MAX;
	}
	if (argc >= 3) {
		long err = sys_thread_set_cpu(atoi(argv[2]));
		if (err) {
			printf("tracegen: cannot run on cpu %s: %s\n", argv[2],
			       strerror((int)-err));
			return 1;
		}
	}
	uint64_t start = (uint64_t)sys_clock_ns();
	for (unsigned long long done = 0; done < n;) {
		unsigned long long chunk = n - done < batch ? n - done : batch;
		long got = sys_trace_test(chunk);
		if (got < 0) {
			printf("tracegen: trace_test: %s\n", strerror((int)-got));
			return 1;
		}
		emitted += (unsigned long long)got;
		done += chunk;
		/* Paced: the next batch when the rate allows it, never bunched up to catch up. */
		uint64_t due = start + (uint64_t)(done * 1000000000ull / (rate ? rate : 1));
		uint64_t now = (uint64_t)sys_clock_ns();
		if (rate && due > now) {
			sys_sleep_ns(due - now);
		}
	}
	uint64_t took = (uint64_t)sys_clock_ns() - start;
	printf("tracegen: emitted %llu of %llu events, %llu ns each\n", emitted, n,
	       (unsigned long long)(n ? took / n : 0));
	return 0;
}
