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

/* The most lateness made up at full speed: a tenth of a second. */
#define CATCH_UP_NS 100000000ull

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
	/* The pace's origin: batches are due at RATE from paced_at on, counted from paced_done. */
	uint64_t paced_at = start;
	unsigned long long paced_done = 0;
	for (unsigned long long done = 0; done < n;) {
		unsigned long long chunk = n - done < batch ? n - done : batch;
		long got = sys_trace_test(chunk);
		if (got < 0) {
			printf("tracegen: trace_test: %s\n", strerror((int)-got));
			return 1;
		}
		emitted += (unsigned long long)got;
		done += chunk;
		if (!rate) {
			continue;
		}
		/*
		 * Paced: the next batch when the rate allows it. A sleep ends on
		 * a timer tick, late by up to one, which the batches after it make
		 * up at once. Later than CATCH_UP_NS (the host did not run us for
		 * a while), the pace starts again from now instead: batches that
		 * made up seconds at full speed would lap a ring its reader had
		 * no time to drain. So no second has more than RATE and a tenth,
		 * which the tests' "below the sustainable rate" relies on.
		 */
		uint64_t due = paced_at + (uint64_t)((done - paced_done) * 1000000000ull / rate);
		uint64_t now = (uint64_t)sys_clock_ns();
		if (due > now) {
			sys_sleep_ns(due - now);
		} else if (now - due > CATCH_UP_NS) {
			paced_at = now;
			paced_done = done;
		}
	}
	uint64_t took = (uint64_t)sys_clock_ns() - start;
	printf("tracegen: emitted %llu of %llu events, %llu ns each\n", emitted, n,
	       (unsigned long long)(n ? took / n : 0));
	return 0;
}
