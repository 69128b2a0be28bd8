/*
 * util: what every ipctest test uses — recording checks and printing the
 * verdict, starting ipctest again in a role and keeping track of those
 * children, and watching threads until they block.
 *
 * Children are tracked by the main thread only (tests spawn and reap from
 * it); checks may be recorded from any thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipctest.h"

#define MAX_CHILDREN 32
#define MAX_THREADS  128
#define POLL_NS	     (2 * MS)
#define ARGS_BYTES   128
#define MAX_OBSERVED 64

const char *test_name = "?";

static int failed;		    /* [a] */
static int passed;		    /* [a] */
static int children[MAX_CHILDREN];  /* process slots, 0 when free; main thread only */
static long observed[MAX_OBSERVED]; /* what observe() was given, in order */
static int observations; /* [a] how many observe() calls; those past MAX_OBSERVED are not kept */

static const char *error_text(long v)
{
	return v < 0 ? strerror((int)-v) : "";
}

bool check(const char *what, long got, long want)
{
	if (got == want) {
		__atomic_fetch_add(&passed, 1, __ATOMIC_RELAXED);
		return true;
	}
	__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
	printf("ipctest %s: FAIL %s: got %ld%s%s%s, want %ld%s%s%s\n", test_name, what, got,
	       got < 0 ? " (" : "", error_text(got), got < 0 ? ")" : "", want, want < 0 ? " (" : "",
	       error_text(want), want < 0 ? ")" : "");
	return false;
}

bool check_true(const char *what, bool ok, const char *detail, ...)
{
	char text[160];
	va_list ap;

	if (ok) {
		__atomic_fetch_add(&passed, 1, __ATOMIC_RELAXED);
		return true;
	}
	va_start(ap, detail);
	vsnprintf(text, sizeof(text), detail, ap);
	va_end(ap);
	__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
	printf("ipctest %s: FAIL %s: %s\n", test_name, what, text);
	return false;
}

bool check_no_cap(const char *what, uint32_t slot)
{
	if (slot == IPC_NO_CAP) {
		__atomic_fetch_add(&passed, 1, __ATOMIC_RELAXED);
		return true;
	}
	sys_cap_delete((int)slot);
	return check_true(what, false, "a capability arrived in slot %u", slot);
}

long observe(long value)
{
	int i = __atomic_fetch_add(&observations, 1, __ATOMIC_RELAXED);

	if (i < MAX_OBSERVED) {
		observed[i] = value;
	}
	return value;
}

/* The observed line: how many values, then those kept, so that a lost one shows. */
static void print_observed(void)
{
	int n = __atomic_load_n(&observations, __ATOMIC_RELAXED);

	if (!n) {
		return;
	}
	printf("ipctest %s: observed %d:", test_name, n);
	for (int i = 0; i < n && i < MAX_OBSERVED; i++) {
		printf(" %ld", observed[i]);
	}
	printf("\n");
}

int failures(void)
{
	return __atomic_load_n(&failed, __ATOMIC_RELAXED);
}

static void forget_child(int process)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] == process) {
			children[i] = 0;
		}
	}
}

void finish(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (children[i]) {
			kill_and_reap(children[i], NULL);
		}
	}
	print_observed();
	if (failures()) {
		printf("ipctest %s: %d checks failed\n", test_name, failures());
		exit(1);
	}
	/* What the host holds against the checks it knows the test makes (test_ipc.py). */
	printf("ipctest %s: %d checks passed\n", test_name,
	       __atomic_load_n(&passed, __ATOMIC_RELAXED));
	printf("ipctest %s: ok\n", test_name);
	exit(0);
}

void fatal(const char *what, long err)
{
	check(what, err, 0);
	finish();
}

int spawn_role(const char *role, const char *arg, int endpoint, uint32_t ep_rights, int frame)
{
	char args[ARGS_BYTES];
	/* The console, then the endpoint and the frame when given. */
	struct spawn_cap caps[3] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CAP_RIGHTS_ALL},
	};
	const char *argv[] = {"ipctest", role, arg};
	uint32_t ncaps = 1;
	size_t len = 0;
	int slot_free = -1;

	for (int i = 0; i < MAX_CHILDREN && slot_free < 0; i++) {
		if (!children[i]) {
			slot_free = i;
		}
	}
	if (slot_free < 0) {
		fatal("too many children at once", -ENOSPC);
	}
	for (size_t i = 0; i < sizeof(argv) / sizeof(argv[0]) && argv[i]; i++) {
		size_t n = strlen(argv[i]) + 1;
		if (len + n > sizeof(args)) {
			fatal("role arguments too long", -E2BIG);
		}
		memcpy(args + len, argv[i], n);
		len += n;
	}
	if (endpoint >= 0) {
		caps[ncaps++] = (struct spawn_cap){
		    .src = (uint32_t)endpoint, .dst = ROLE_SLOT_ENDPOINT, .rights = ep_rights};
	}
	if (frame >= 0) {
		caps[ncaps++] = (struct spawn_cap){
		    .src = (uint32_t)frame, .dst = ROLE_SLOT_FRAME, .rights = CAP_RIGHTS_ALL};
	}
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t) "ipctest",
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len,
	    .ncaps = ncaps,
	    .caps = (uint64_t)(uintptr_t)caps,
	};
	long process = sys_spawn(&sa);
	if (process < 0) {
		fatal("spawn of a role", process);
	}
	children[slot_free] = (int)process;
	return (int)process;
}

uint32_t pid_of(int process)
{
	struct cap_info info = {0};

	sys_cap_identify(process, &info);
	return (uint32_t)info.size;
}

long reap(int process, int64_t *status, uint64_t timeout_ns)
{
	long err = sys_wait(process, status, timeout_ns);

	if (!err) {
		forget_child(process);
		sys_cap_delete(process);
	}
	return err;
}

long kill_and_reap(int process, int64_t *status)
{
	int64_t ignored;
	long err = sys_kill(process);

	return err ? err : reap(process, status ? status : &ignored, PROMPT_NS);
}

/* True if every matching thread is blocked (and at least one matches). */
bool all_blocked(uint32_t pid, uint32_t tid)
{
	static struct thread_info threads[MAX_THREADS];
	long n = sys_thread_list(threads, MAX_THREADS);
	bool seen = false;

	for (long i = 0; i < n; i++) {
		const struct thread_info *t = &threads[i];
		if (t->pid != pid || (tid && t->tid != tid)) {
			continue;
		}
		if (t->state != THREAD_BLOCKED) {
			return false;
		}
		seen = true;
	}
	return seen;
}

bool wait_blocked(uint32_t pid, uint32_t tid, uint64_t timeout_ns)
{
	uint64_t end = now_ns() + timeout_ns;

	while (!all_blocked(pid, tid)) {
		if (now_ns() > end) {
			return false;
		}
		sys_sleep_ns(POLL_NS);
	}
	return true;
}

struct ipc_extra extra_with(uint64_t timeout_ns)
{
	return (struct ipc_extra){.timeout_ns = timeout_ns, .send_cap = IPC_NO_CAP};
}

static int caller_main(void *arg)
{
	struct caller *c = arg;
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 1), .words = {c->word}};
	struct ipc_extra x = extra_with(c->timeout_ns);
	uint64_t start = now_ns();

	c->result = c->recv ? sys_ipc_recv(c->slot, &m, &x) : sys_ipc_call(c->slot, &m, &x);
	c->elapsed_ns = now_ns() - start;
	c->cap = c->result ? IPC_NO_CAP : x.recv_cap;
	if (!c->result) {
		c->word = m.words[0];
	}
	return 0;
}

void caller_start(struct caller *c)
{
	c->tid = thread_spawn(caller_main, c, 0);
	if (c->tid < 0) {
		fatal("thread_spawn", c->tid);
	}
}

long caller_join(struct caller *c)
{
	long err = thread_join(c->tid, NULL);

	return err ? err : c->result;
}

int new_endpoint(void)
{
	long ep = sys_endpoint_create();

	if (ep < 0) {
		fatal("endpoint_create", ep);
	}
	return (int)ep;
}

void check_joined(int tid, const char *what)
{
	char line[96];
	int64_t status = -1;

	snprintf(line, sizeof(line), "join %s", what);
	check(line, thread_join(tid, &status), 0);
	snprintf(line, sizeof(line), "%s's status", what);
	check(line, (long)status, 0);
}
