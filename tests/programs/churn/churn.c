/*
 * churn MODE [N]: makes the kernel create and free its objects over and
 * over, or run into its limits (abi/proc.h), so that a test can compare
 * free memory before and after (`mem`) and read the answers:
 *
 *   threads N    N rounds of BATCH threads joined, then BATCH detached
 *   unjoined     threads nobody joins, until thread_create refuses one; then
 *                one join, and thread_create must succeed again
 *   spawn N      N rounds of BATCH / 2 children that exit at once, each waited for
 *   stopped N    first process_start's refusals (wrong kind, empty, no right,
 *                not stopped); then N rounds of BATCH / 2 children spawned
 *                SPAWN_STOPPED, half killed before they start, half started
 *                (each start once only); then BATCH / 4 left stopped, their
 *                pids printed, to end with it
 *   ipc N        N rounds of BATCH endpoints, each served by a thread of its
 *                own: one call carrying a full buffer and a capability
 *   tree         children that sleep, until spawn refuses one; then exits
 *                (the children end with it)
 *   orphans N    N children that sleep; prints their pids and exits at once
 *   parent       one child that sleeps, its pid printed; then sleeps itself
 *   bomb         every process spawns copies of itself, retrying every
 *                BOMB_RETRY_NS, until killed; the first says when its tree
 *                is full
 *   sleep, exit  sleeps until killed, exits at once: what the children above run
 *
 * Each mode prints one line saying what it did, or why it stopped, and
 * exits 0; 1 on an unexpected error.
 */
#include <errno.h>
#include <spoor.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH		 32
#define LIMIT_SEARCH	 1000 /* a limit not met this far counts as missing */
#define SLEEP_NS	 1000000000ull
#define BOMB_RETRY_NS	 100000000ull
#define LABEL_ECHO	 1
#define SHARED_STACK_TOP 0x10000 /* never touched: see exit_at_once */

/*
 * A thread that ends at once, touching no memory, not even its stack: any
 * number of them can be given the same (unmapped) stack top.
 */
_Static_assert(SYS_thread_exit == 5, "the number in exit_at_once");
__attribute__((naked)) static void exit_at_once(void *arg)
{
	(void)arg;
	__asm__ volatile("mov $5, %eax\n\txor %edi, %edi\n\tsyscall\n\tud2");
}

static long start_exit_at_once(void)
{
	return sys_thread_create(exit_at_once, (void *)SHARED_STACK_TOP, NULL);
}

/* The name of the errors a limit may answer with. */
static const char *limit_error(long err)
{
	return err == -EAGAIN ? "EAGAIN" : err == -ENOMEM ? "ENOMEM" : "another error";
}

static int fail(const char *what, long err)
{
	printf("churn: %s: %s\n", what, strerror((int)-err));
	return 1;
}

static int returns_at_once(void *arg)
{
	return (int)(uintptr_t)arg;
}

static int churn_threads(long rounds)
{
	int tids[BATCH];

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH; i++) {
			tids[i] = thread_spawn(returns_at_once, NULL, 0);
			if (tids[i] < 0) {
				return fail("thread_spawn", tids[i]);
			}
		}
		for (int i = 0; i < BATCH; i++) {
			long err = thread_join(tids[i], NULL);
			if (err) {
				return fail("thread_join", err);
			}
		}
		for (int i = 0; i < BATCH; i++) {
			long tid;
			/* Records of detached threads not yet run count too: let them run. */
			while ((tid = start_exit_at_once()) == -EAGAIN) {
				sys_yield();
			}
			if (tid < 0) {
				return fail("thread_create", tid);
			}
			long err = sys_thread_detach((int)tid);
			if (err) {
				return fail("thread_detach", err);
			}
		}
	}
	printf("churn threads: %ld joined, %ld detached\n", rounds * BATCH, rounds * BATCH);
	return 0;
}

static int churn_unjoined(void)
{
	long first = 0, tid = 0, n;

	for (n = 0; n < LIMIT_SEARCH; n++) {
		tid = start_exit_at_once();
		if (tid < 0) {
			break;
		}
		first = first ? first : tid;
	}
	if (tid >= 0) {
		printf("churn unjoined: no limit met in %d threads\n", LIMIT_SEARCH);
		return 0;
	}
	printf("churn unjoined: thread_create answered %s (%s) after %ld threads\n",
	       limit_error(tid), strerror((int)-tid), n);
	long err = sys_thread_join((int)first, NULL);
	if (err) {
		return fail("thread_join", err);
	}
	tid = start_exit_at_once();
	if (tid < 0) {
		return fail("thread_create after a join", tid);
	}
	printf("churn unjoined: after a join, thread_create gave tid %ld\n", tid);
	return 0;
}

/*
 * Spawns this program with args (argv strings, NUL-separated, len bytes),
 * flags (SPAWN_*) and no capability.
 */
static long spawn_self(const char *args, size_t len, uint32_t flags)
{
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t) "churn",
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len,
	    .flags = flags,
	};

	return sys_spawn(&sa);
}

#define SPAWN_SELF(literal)	    spawn_self(literal, sizeof(literal), 0)
#define SPAWN_SELF_STOPPED(literal) spawn_self(literal, sizeof(literal), SPAWN_STOPPED)

/* The pid of the process in slot. */
static uint32_t pid_in(long slot)
{
	struct cap_info info;

	sys_cap_identify((int)slot, &info);
	return (uint32_t)info.size;
}

static int churn_spawn(long rounds)
{
	long slots[BATCH];

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH / 2; i++) {
			slots[i] = SPAWN_SELF("churn\0exit");
			if (slots[i] < 0) {
				return fail("spawn", slots[i]);
			}
		}
		for (int i = 0; i < BATCH / 2; i++) {
			long err = sys_wait((int)slots[i], NULL, TIMEOUT_FOREVER);
			if (err) {
				return fail("wait", err);
			}
			sys_cap_delete((int)slots[i]);
		}
	}
	printf("churn spawn: %ld children\n", rounds * (BATCH / 2));
	return 0;
}

/* One check of churn stopped: got must be want. */
static bool stopped_check(const char *what, long got, long want)
{
	if (got != want) {
		printf("churn stopped: %s: got %ld, want %ld\n", what, got, want);
	}
	return got == want;
}

/* The wait status of the process in slot, or the error of the wait. */
static long status_of(long slot)
{
	int64_t status;
	long err = sys_wait((int)slot, &status, TIMEOUT_FOREVER);

	return err ? err : (long)status;
}

/*
 * A stopped child never runs by itself: waiting for it times out. Then
 * half are killed before they start (by capability or by pid), and a
 * start after that is refused; the other half start once, and a second
 * start is refused.
 */
static bool stopped_child(long slot, int i)
{
	bool ok =
	    stopped_check("wait on a stopped child", sys_wait((int)slot, NULL, 0), -ETIMEDOUT);

	if (i % 2) {
		ok = ok && stopped_check("start", sys_process_start((int)slot), 0);
		ok = ok && stopped_check("start again", sys_process_start((int)slot), -EINVAL);
		ok = ok && stopped_check("status of a started child", status_of(slot), 0);
		return ok;
	}
	long killed = i % 4 ? sys_kill_pid(pid_in(slot)) : sys_kill((int)slot);
	ok = ok && stopped_check("kill before the start", killed, 0);
	ok = ok && stopped_check("status of a killed child", status_of(slot), EXIT_KILLED);
	ok = ok && stopped_check("start after the kill", sys_process_start((int)slot), -EINVAL);
	return ok;
}

/* process_start's answers for slots it cannot start. */
static bool stopped_refusals(void)
{
	long running = SPAWN_SELF("churn\0exit");
	long stopped = SPAWN_SELF_STOPPED("churn\0exit");
	long no_start = sys_cap_copy((int)stopped, CAP_RIGHT_WAIT | CAP_RIGHT_KILL);
	bool ok =
	    stopped_check("start of the console", sys_process_start(CAP_SLOT_CONSOLE), -ECAPKIND);

	ok =
	    ok && stopped_check("start of an empty slot", sys_process_start(CAP_SLOTS - 1), -EBADF);
	ok = ok && stopped_check("start of a child spawned running",
				 sys_process_start((int)running), -EINVAL);
	ok = ok && stopped_check("start without CAP_RIGHT_START", sys_process_start((int)no_start),
				 -EACCES);
	ok = ok && stopped_check("start", sys_process_start((int)stopped), 0);
	ok = ok && stopped_check("status of the child spawned running", status_of(running), 0);
	ok = ok && stopped_check("status of the started child", status_of(stopped), 0);
	sys_cap_delete((int)running);
	sys_cap_delete((int)stopped);
	sys_cap_delete((int)no_start);
	return ok;
}

static int churn_stopped(long rounds)
{
	long slot;

	if (!stopped_refusals()) {
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH / 2; i++) {
			slot = SPAWN_SELF_STOPPED("churn\0exit");
			if (slot < 0) {
				return fail("spawn", slot);
			}
			if (!stopped_child(slot, i)) {
				return 1;
			}
			sys_cap_delete((int)slot);
		}
	}
	printf("churn stopped: %ld children, %ld killed before they ran, %ld started\n",
	       rounds * (BATCH / 2), rounds * (BATCH / 4), rounds * (BATCH / 4));
	/* These end with this process, never having run. */
	printf("churn stopped: left stopped:");
	for (int i = 0; i < BATCH / 4; i++) {
		slot = SPAWN_SELF_STOPPED("churn\0exit");
		if (slot < 0) {
			return fail("spawn", slot);
		}
		printf(" %u", pid_in(slot));
	}
	printf("\n");
	return 0;
}

static int churn_tree(void)
{
	long slot = 0, n;

	/* The children need no watching: dropping their capabilities keeps the table from filling.
	 */
	for (n = 0; n < LIMIT_SEARCH && slot >= 0; n++) {
		slot = SPAWN_SELF("churn\0sleep");
		sys_cap_delete((int)slot);
	}
	if (slot >= 0) {
		printf("churn tree: no limit met in %d children\n", LIMIT_SEARCH);
	} else {
		printf("churn tree: spawn answered %s (%s) after %ld children\n", limit_error(slot),
		       strerror((int)-slot), n - 1);
	}
	return 0;
}

static int churn_orphans(long n)
{
	for (long i = 0; i < n; i++) {
		long slot = SPAWN_SELF("churn\0sleep");
		if (slot < 0) {
			return fail("spawn", slot);
		}
		printf("churn orphans: child pid %u\n", pid_in(slot));
	}
	printf("churn orphans: exiting\n");
	return 0;
}

static __attribute__((noreturn)) void sleep_for_ever(void)
{
	for (;;) {
		sys_sleep_ns(SLEEP_NS);
	}
}

static int churn_parent(void)
{
	long slot = SPAWN_SELF("churn\0sleep");

	if (slot < 0) {
		return fail("spawn", slot);
	}
	printf("churn parent: child pid %u\n", pid_in(slot));
	fflush(stdout);
	sleep_for_ever();
}

static int churn_bomb(bool first)
{
	for (;;) {
		long slot = SPAWN_SELF("churn\0bomb\0copy");
		sys_cap_delete((int)slot);
		if (slot == -EAGAIN && first) {
			printf("churn bomb: spawn answered EAGAIN: the tree is full\n");
			fflush(stdout);
			first = false;
		} else if (slot < 0 && slot != -EAGAIN) {
			return fail("spawn", slot);
		}
		if (slot < 0) {
			sys_sleep_ns(BOMB_RETRY_NS);
		}
	}
}

struct served {
	int endpoint;
	uint8_t buf[IPC_BUF_MAX];
};

static struct served served[BATCH];
static uint8_t message[IPC_BUF_MAX];
static uint8_t answer[IPC_BUF_MAX];

/* Serves one call on its endpoint: drops the capability it carries and echoes its buffer. */
static int serve_one(void *arg)
{
	struct served *s = arg;
	struct ipc_regs m = {0};
	struct ipc_extra x = {
	    .timeout_ns = TIMEOUT_FOREVER,
	    .send_cap = IPC_NO_CAP,
	    .recv_buf = (uint64_t)(uintptr_t)s->buf,
	    .recv_max = sizeof(s->buf),
	};
	long err = sys_ipc_recv(s->endpoint, &m, &x);

	if (err) {
		return (int)-err;
	}
	if (x.recv_cap != IPC_NO_CAP) {
		sys_cap_delete((int)x.recv_cap);
	}
	struct ipc_extra r = {
	    .send_cap = IPC_NO_CAP,
	    .send_buf = (uint64_t)(uintptr_t)s->buf,
	    .send_len = x.recv_len,
	};
	m.info = IPC_INFO(LABEL_ECHO, 0);
	return (int)-sys_ipc_reply(&m, &r);
}

/* One call to the endpoint in slot with a full buffer and a copy of the endpoint. */
static long call_with_everything(int slot)
{
	struct ipc_regs m = {.info = IPC_INFO(LABEL_ECHO, 0)};
	struct ipc_extra x = {
	    .timeout_ns = TIMEOUT_FOREVER,
	    .send_buf = (uint64_t)(uintptr_t)message,
	    .send_len = sizeof(message),
	    .send_cap = (uint32_t)slot,
	    .send_cap_rights = CAP_RIGHT_WRITE,
	    .recv_buf = (uint64_t)(uintptr_t)answer,
	    .recv_max = sizeof(answer),
	};
	long err = sys_ipc_call(slot, &m, &x);

	if (!err && (x.recv_len != sizeof(answer) || memcmp(answer, message, sizeof(answer)))) {
		err = -EIO;
	}
	return err;
}

static int churn_ipc(long rounds)
{
	int tids[BATCH];

	memset(message, 'm', sizeof(message));
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH; i++) {
			long ep = sys_endpoint_create();
			if (ep < 0) {
				return fail("endpoint_create", ep);
			}
			served[i].endpoint = (int)ep;
			tids[i] = thread_spawn(serve_one, &served[i], 0);
			if (tids[i] < 0) {
				return fail("thread_spawn", tids[i]);
			}
		}
		for (int i = 0; i < BATCH; i++) {
			long err = call_with_everything(served[i].endpoint);
			if (err) {
				return fail("ipc_call", err);
			}
		}
		for (int i = 0; i < BATCH; i++) {
			int64_t status;
			long err = thread_join(tids[i], &status);
			if (err || status) {
				return fail("the server thread", err ? err : -status);
			}
			sys_cap_delete(served[i].endpoint);
		}
	}
	printf("churn ipc: %ld endpoints, %ld calls\n", rounds * BATCH, rounds * BATCH);
	return 0;
}

/* A whole number in [1, max] from all of s, or -1. */
static long count_arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end == s || *end || v < 1 || v > max ? -1 : v;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? count_arg(argv[2], 1000000) : 1;

	if (!strcmp(mode, "bomb")) {
		return churn_bomb(argc == 2); /* its copies get a second word */
	}
	if (n < 0) {
		mode = "";
	}
	if (!strcmp(mode, "threads")) {
		return churn_threads(n);
	}
	if (!strcmp(mode, "unjoined")) {
		return churn_unjoined();
	}
	if (!strcmp(mode, "spawn")) {
		return churn_spawn(n);
	}
	if (!strcmp(mode, "ipc")) {
		return churn_ipc(n);
	}
	if (!strcmp(mode, "stopped")) {
		return churn_stopped(n);
	}
	if (!strcmp(mode, "tree")) {
		return churn_tree();
	}
	if (!strcmp(mode, "orphans")) {
		return churn_orphans(n);
	}
	if (!strcmp(mode, "parent")) {
		return churn_parent();
	}
	if (!strcmp(mode, "sleep")) {
		sleep_for_ever();
	}
	if (!strcmp(mode, "exit")) {
		return 0;
	}
	printf("usage: churn threads|spawn|stopped|ipc N, churn unjoined|tree|parent|bomb|sleep, "
	       "churn orphans N\n");
	return 2;
}
