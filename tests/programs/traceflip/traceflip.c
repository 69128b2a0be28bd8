/*
 * traceflip: turns every trace category but test on, then off, over and
 * over until killed, through traced as `trace on` and `trace off` do (run
 * it with `run -t`). Each change rewrites the kernel's tracepoints with
 * the other CPUs stopped (static branches), so a test runs this beside
 * busy programs to show the rewriting safe. The test category is left as
 * it is: its events come from the trace_test syscall, which reads the
 * mask rather than a tracepoint, and a test that keeps it on knows
 * exactly how many tracegen emits. After its first round it prints
 *   traceflip: flipping
 * and on an error, the request that failed (exit 1).
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace.h"
#include "abi/traced.h"

#define FLIPPED (TTRACE_CAT_ALL & ~TTRACE_CAT(TEST))

static void flip(uint32_t op)
{
	long err = traced_request(op, FLIPPED, NULL, 0, NULL, 0, NULL);

	if (err) {
		printf("traceflip: %s: %s\n", op == TRACED_OP_ENABLE ? "enable" : "disable",
		       strerror((int)-err));
		exit(1);
	}
}

int main(void)
{
	flip(TRACED_OP_ENABLE);
	flip(TRACED_OP_DISABLE);
	printf("traceflip: flipping\n");
	for (;;) {
		flip(TRACED_OP_ENABLE);
		flip(TRACED_OP_DISABLE);
	}
}
