/*
 * probeload N SLOT CPU: asks the kernel N times, on CPU, about a user
 * event through capability slot SLOT, a slot that holds no trace control,
 * so every call runs syscall_need_trace_control(SLOT) (from
 * sys_uevent_control, which calls it, where trace_control's own has it
 * inlined) and is refused the same way; then says how every call was
 * answered:
 *   probeload: 500 calls on cpu 2, each answered -9
 * The kernel probes' test (tests/system/test_probe.py) sets a probe at
 * each instruction of that function in turn while this runs on every
 * CPU: a probe that stepped its instruction wrong would show here as
 * another answer, or as no end at all.
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>

#include "abi/uevent.h"

int main(int argc, char **argv)
{
	char *end1, *end2, *end3;

	if (argc != 4) {
		printf("probeload: usage: probeload N SLOT CPU\n");
		return 2;
	}
	unsigned long long n = strtoull(argv[1], &end1, 10);
	long slot = strtol(argv[2], &end2, 0);
	long cpu = strtol(argv[3], &end3, 10);
	if (*end1 || *end2 || *end3 || !n) {
		printf("probeload: usage: probeload N SLOT CPU\n");
		return 2;
	}
	long err = sys_thread_set_cpu((int)cpu);
	if (err) {
		printf("probeload: cannot run on cpu %ld: %ld\n", cpu, err);
		return 1;
	}
	long first = sys_uevent_control((int)slot, UEVENT_OP_INFO, 0, NULL);
	for (unsigned long long i = 1; i < n; i++) {
		long got = sys_uevent_control((int)slot, UEVENT_OP_INFO, 0, NULL);
		if (got != first) {
			printf("probeload: FAILED: call %llu answered %ld, the first %ld\n", i, got,
			       first);
			return 1;
		}
	}
	printf("probeload: %llu calls on cpu %ld, each answered %ld\n", n, cpu, first);
	return 0;
}
