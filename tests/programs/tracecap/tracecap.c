/*
 * tracecap: checks that trace memory and trace control need their
 * capabilities. Run from the shell it holds none of them: every attempt
 * must fail with the error abi/cap.h documents for the slot it names.
 * Then it asks traced for the read-only trace-read capability tools get
 * (TRACED_OP_MAP) and checks that it maps the area read-only and no
 * more: no writable mapping, no reader page, no control, no passing it
 * on. Prints `tracecap: ok`, or each check that failed (exit 1).
 * `tracecap off` checks only what holds without a trace area.
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

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

/* The capability traced hands out: it reads the area, and that is all. */
static void read_only_checks(void)
{
	struct cap_info info;
	uint32_t slot;
	long err = traced_call_map(&slot);

	if (err) {
		expect("ask traced for a trace-read capability", err, 0);
		return;
	}
	int s = (int)slot;
	expect("identify it", sys_cap_identify(s, &info), 0);
	expect("its kind", info.kind, CAP_KIND_TRACE_READ);
	expect("its rights", info.rights, CAP_RIGHT_READ);
	long base = sys_trace_map(s, TTRACE_MAP_AREA, NULL);
	if (base <= 0) { /* 0 is never a mapping: nothing maps below PROGRAM_BASE */
		expect("map the area", base, 0);
		return;
	}
	const struct ttrace_header *h = (const struct ttrace_header *)base;
	expect("the header's magic", h->magic, TTRACE_MAGIC);
	expect("the area's size", (long)info.size, (long)h->area_size);
	expect("make the header writable",
	       sys_mem_protect((void *)base, TTRACE_PAGE_SIZE, PROT_READ | PROT_WRITE), -EACCES);
	expect("make a ring writable",
	       sys_mem_protect((void *)(base + h->ring_offset), TTRACE_PAGE_SIZE,
			       PROT_READ | PROT_WRITE),
	       -EACCES);
	/* The wake-up's watermark is checked first (abi/trace.h, trace_wake), then the slots. */
	expect("arm the wake-up at 0 entries", sys_trace_wake(s, CAP_SLOT_CONSOLE, 0), -EINVAL);
	expect("arm the wake-up at a whole ring",
	       sys_trace_wake(s, CAP_SLOT_CONSOLE, h->ring_entries), -EINVAL);
	expect("arm the wake-up with it", sys_trace_wake(s, CAP_SLOT_CONSOLE, h->ring_entries - 1),
	       -ECAPKIND);
	expect("map the reader page with it", sys_trace_map(s, TTRACE_MAP_READER, NULL), -ECAPKIND);
	expect("control tracing with it", sys_trace_control(s, TTRACE_OP_CLEAR, 0), -ECAPKIND);
	/* Without the grant right it stays here: sending it to a server is refused. */
	long echo = lookup("echo");
	struct ipc_regs m = {.info = IPC_INFO(0, 0)};
	struct ipc_extra x = {.timeout_ns = TIMEOUT_FOREVER,
			      .send_cap = (uint32_t)s,
			      .send_cap_rights = CAP_RIGHT_READ};
	expect("find the echo server", echo < 0 ? echo : 0, 0);
	expect("send it to another process", sys_ipc_call((int)echo, &m, &x), -EACCES);
}

/*
 * tracecap off: on a machine without a trace area, where traced does not
 * run, the wake-up has no ring to watch: refused before any slot.
 */
static int tracing_off(void)
{
	expect("arm the wake-up without a trace area", sys_trace_wake(CAP_SLOT_TRACE_CONTROL, 0, 1),
	       -ENOMEM);
	if (failures) {
		return 1;
	}
	printf("tracecap: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct cap_info info;

	if (argc == 2 && !strcmp(argv[1], "off")) {
		return tracing_off();
	}

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
	expect("arm the wake-up, empty slot", sys_trace_wake(CAP_SLOT_TRACE_CONTROL, 0, 1), -EBADF);
	expect("arm the wake-up with the console", sys_trace_wake(CAP_SLOT_CONSOLE, 0, 1),
	       -ECAPKIND);
	read_only_checks();
	if (failures) {
		return 1;
	}
	printf("tracecap: ok\n");
	return 0;
}
