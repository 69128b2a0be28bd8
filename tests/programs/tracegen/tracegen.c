/*
 * tracegen N [CPU]: emits exactly N test_tick events through the
 * trace_test syscall (abi/trace.h), on CPU if given, and prints how many
 * the test category let through and what each took (make bench compares
 * them, tracking on and off):
 *   tracegen: emitted 1000 of 1000 events, 412 ns each
 * A workload whose count tests know, for exact accounting.
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
	unsigned long long emitted = 0;

	if (argc < 2 || argc > 3 || *end || argv[1][0] < '0' || argv[1][0] > '9') {
		printf("tracegen: usage: tracegen N [CPU]\n");
		return 2;
	}
	if (argc == 3) {
		long err = sys_thread_set_cpu(atoi(argv[2]));
		if (err) {
			printf("tracegen: cannot run on cpu %s: %s\n", argv[2],
			       strerror((int)-err));
			return 1;
		}
	}
	uint64_t start = (uint64_t)sys_clock_ns();
	for (unsigned long long done = 0; done < n;) {
		unsigned long long chunk = n - done < TTRACE_TEST_MAX ? n - done : TTRACE_TEST_MAX;
		long got = sys_trace_test(chunk);
		if (got < 0) {
			printf("tracegen: trace_test: %s\n", strerror((int)-got));
			return 1;
		}
		emitted += (unsigned long long)got;
		done += chunk;
	}
	uint64_t took = (uint64_t)sys_clock_ns() - start;
	printf("tracegen: emitted %llu of %llu events, %llu ns each\n", emitted, n,
	       (unsigned long long)(n ? took / n : 0));
	return 0;
}
