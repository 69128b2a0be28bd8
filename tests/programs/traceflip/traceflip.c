/*
 * traceflip: turns every trace category but test on, then off, over and
 * over until killed, through traced as `trace on` and `trace off` do (run
 * it with `run -t`). Between the two it asks for the call stacks of one
 * kind no test emits, and stops asking after them: while any stack is
 * asked for, every enabled tracepoint takes the slow path. Each change
 * rewrites the kernel's tracepoints with the other CPUs stopped (static
 * branches), so a test runs this beside busy programs to show the
 * rewriting safe, between off, the straight path and the slow one. The
 * test category is left as it is: a test that keeps it on knows exactly
 * how many events tracegen emits, and gets them all whichever path they
 * take. After its first round it prints
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

/* A kind with a stack asked for: a process's fault, which none of the test's programs has. */
#define STACKED (1ull << TTRACE_KIND_proc_fault)

static void request(long (*ask)(uint64_t, uint64_t *), uint64_t arg, const char *what)
{
	long err = ask(arg, NULL);

	if (err) {
		printf("traceflip: %s: %s\n", what, strerror((int)-err));
		exit(1);
	}
}

static void round_trip(void)
{
	request(traced_call_enable, FLIPPED, "enable");
	request(traced_call_stack, STACKED, "stack on");
	request(traced_call_disable, FLIPPED, "disable");
	request(traced_call_stack, 0, "stack off");
}

int main(void)
{
	round_trip();
	printf("traceflip: flipping\n");
	for (;;) {
		round_trip();
	}
}
