/*
 * hoard MODE ...: a plain program (started with `run`, the SELF level)
 * that tries to take the host's saved traces and the user-event ids from
 * everyone else (issue 27, items 3 and 4). Each mode says what it got:
 *   save NAME    emits test events and one user event of its own, spawns
 *                a child that emits more, then saves under NAME (the
 *                operator's name, say) twice:
 *                  hoard: saved N events to FILE
 *                  hoard: again: WHY
 *                (FILE: self-PID-NAME.spoor, PID its own; the second
 *                save under the same name must be refused: the file is
 *                there)
 *   flood N      N saves under new names one after another, as fast as
 *                traced answers:
 *                  hoard: flood: S saved, R refused: WHY
 *                (WHY: the first refusal's error)
 *   uevents P    spawns P - 1 more of itself (hoard holder), and each of
 *                the P processes registers user events of its own until
 *                traced refuses one, says
 *                  hoard: pid X holds N user events, then: WHY
 *                and keeps them until it is killed
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"

#define TEST_EVENTS   10
#define CHILD_WAIT_NS 10000000000ull
#define HOLD_NS	      1000000000ull
#define MARK_DESC     "hoard_mark u32 n"
#define UEVENTS_MAX   (UEVENT_MAX + 1) /* more than anyone may get: it stops at a refusal */

/* Starts `hoard ARG` with the console and the name service; its slot, or -E*. */
static long spawn_self(const char *arg)
{
	char args[32];
	struct spawn_cap caps[] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CAP_RIGHTS_ALL},
	    {.src = CAP_SLOT_NAMESERVER, .dst = CAP_SLOT_NAMESERVER, .rights = CAP_RIGHTS_ALL},
	};
	int len = snprintf(args, sizeof(args), "hoard%c%s", 0, arg);
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t) "hoard",
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len + 1,
	    .ncaps = sizeof(caps) / sizeof(caps[0]),
	    .caps = (uint64_t)(uintptr_t)caps,
	};
	return sys_spawn(&sa);
}

/* One SAVE of everything it may read, under name: 0 or -E*; *events the events saved. */
static long save(const char *name, uint64_t *events)
{
	struct traced_save_request req = {0};
	struct traced_save_reply rep = {0};

	snprintf(req.name, sizeof(req.name), "%s", name);
	long err = traced_call_save(&req, &rep);
	*events = rep.events;
	return err;
}

static int mode_save(const char *name)
{
	struct trace_uevent mark;
	uint64_t events;
	int64_t status = -1;

	long err = trace_uevent_register(MARK_DESC, &mark);
	if (err) {
		printf("hoard: cannot register %s: %s\n", MARK_DESC, trace_uevent_why(err));
		return 1;
	}
	uint32_t n = 1;
	if (trace_uevent_enabled(&mark)) {
		trace_uevent_write(&mark, &n, sizeof(n));
	}
	sys_trace_test(TEST_EVENTS);
	long child = spawn_self("child");
	if (child < 0 || sys_wait((int)child, &status, CHILD_WAIT_NS) || status) {
		printf("hoard: its child did not run\n");
		return 1;
	}
	err = save(name, &events);
	if (err) {
		printf("hoard: save refused: %s\n", strerror((int)-err));
		return 1;
	}
	printf("hoard: saved %llu events to %s-%ld-%s%s\n", (unsigned long long)events,
	       TRACED_SAVE_PREFIX_SELF, sys_getpid(), name, TTRACE_FILE_SUFFIX);
	err = save(name, &events);
	printf("hoard: again: %s\n", err ? strerror((int)-err) : "saved");
	return 0;
}

static int mode_flood(long n)
{
	long saved = 0, refused = 0, first = 0;
	uint64_t events;
	char name[32];

	for (long i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "flood-%ld", i);
		long err = save(name, &events);
		saved += !err;
		refused += err != 0;
		first = first ? first : err;
	}
	printf("hoard: flood: %ld saved, %ld refused: %s\n", saved, refused,
	       first ? strerror((int)-first) : "none");
	return 0;
}

/* Registers events until traced refuses one, says so, and holds them until killed. */
static _Noreturn void hold(void)
{
	static struct trace_uevent ev[UEVENTS_MAX];
	char desc[64];
	long pid = sys_getpid(), err = 0;
	int n = 0;

	while (n < UEVENTS_MAX && !err) {
		snprintf(desc, sizeof(desc), "hoard_%ld_%d u32 n", pid, n);
		err = trace_uevent_register(desc, &ev[n]);
		n += !err;
	}
	printf("hoard: pid %ld holds %d user events, then: %s\n", pid, n,
	       err ? trace_uevent_why(err) : "no refusal");
	for (;;) {
		sys_sleep_ns(HOLD_NS);
	}
}

static _Noreturn void mode_uevents(long procs)
{
	for (long i = 1; i < procs; i++) {
		if (spawn_self("holder") < 0) {
			printf("hoard: cannot spawn a holder\n");
		}
	}
	hold();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "child")) {
		return sys_trace_test(TEST_EVENTS) == TEST_EVENTS ? 0 : 1;
	}
	if (argc == 2 && !strcmp(argv[1], "holder")) {
		hold();
	}
	if (argc == 3 && !strcmp(argv[1], "save")) {
		return mode_save(argv[2]);
	}
	long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	if (n > 0 && !strcmp(argv[1], "flood")) {
		return mode_flood(n);
	}
	if (n > 0 && !strcmp(argv[1], "uevents")) {
		mode_uevents(n);
	}
	printf("hoard: usage: hoard save NAME | flood N | uevents PROCS\n");
	return 2;
}
