/*
 * tracecap: checks that trace memory and trace control need their
 * capabilities. Run from the shell it holds none of them: every attempt
 * must fail with the error abi/cap.h documents for the slot it names.
 * Prints `tracecap: ok`, or each check that failed (exit 1).
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace.h"

static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("tracecap: %s gave %ld (%s), expected %ld (%s)\n", what, got,
		       strerror((int)-got), want, strerror((int)-want));
		failures++;
	}
}

int main(void)
{
	struct cap_info info;

	/* The well-known trace slots are empty for programs the shell starts. */
	expect("identify trace-read slot", sys_cap_identify(CAP_SLOT_TRACE_READ, &info), -EBADF);
	expect("map area, empty slot", sys_trace_map(CAP_SLOT_TRACE_READ, TTRACE_MAP_AREA, NULL),
	       -EBADF);
	expect("map reader page, empty slot",
	       sys_trace_map(CAP_SLOT_TRACE_CONTROL, TTRACE_MAP_READER, NULL), -EBADF);
	expect("enable, empty slot",
	       sys_trace_control(CAP_SLOT_TRACE_CONTROL, TTRACE_OP_ENABLE, TTRACE_CAT_ALL), -EBADF);
	/* The console is a capability, but of another kind. */
	expect("map area with the console", sys_trace_map(CAP_SLOT_CONSOLE, TTRACE_MAP_AREA, NULL),
	       -ECAPKIND);
	expect("clear with the console", sys_trace_control(CAP_SLOT_CONSOLE, TTRACE_OP_CLEAR, 0),
	       -ECAPKIND);
	expect("slot out of range", sys_trace_control(CAP_SLOTS, TTRACE_OP_CLEAR, 0), -EBADF);
	if (failures) {
		return 1;
	}
	printf("tracecap: ok\n");
	return 0;
}
