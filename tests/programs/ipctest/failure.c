/*
 * failure: IPC when the other side is missing, slow or gone.
 *
 * `timeout`: a receive nobody calls and a call nobody answers (queued, or
 * taken by a server that never replies) end with -ETIMEDOUT after their
 * timeout and not much later (LATE_NS, or `timeout LATE_MS`: a machine
 * whose clocks count instructions, QEMU's -icount, takes a tight bound);
 * afterwards the endpoint holds no trace of them, and the late reply is
 * dropped without error.
 *
 * `server-death`: a caller whose server process dies while holding its
 * reply gets -EPIPE; callers queued on an endpoint whose only receiver
 * dies get -EPIPE, and so does every later call.
 *
 * `endpoint-delete`: deleting the last capability that can receive wakes
 * queued callers with -EPIPE, deleting the last one that can call wakes
 * waiting receivers with -EPIPE, and calls or receives after that fail at
 * once. Each case runs twice: with the narrowed capability made by
 * endpoint_mint and by cap_copy, the two ways to drop rights.
 *
 * `client-death`: a client killed while the server holds its reply, or
 * while its call is queued, leaves nothing behind: the reply (even one
 * carrying a buffer and a capability) is a harmless no-op, the queued
 * call is withdrawn, and the server goes on serving others.
 *
 * The last three observe (observe()) what each call they check returned
 * and the values they check (a flag, a kill's status, badges, words), in
 * the order checked, for the host to hold against the scenario.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ipctest.h"

#define SHORT_NS     (300 * MS)
#define LATE_NS	     (2 * S) /* a timeout may fire this much late under TCG */
#define HOLD_WAIT_NS (10 * S)
#define WAKE_WAIT_NS (3 * S)
#define LEAK_FRAME   (256 * PAGE_SIZE_USER)
#define LEAK_SLACK   128 /* frames: less than half the frame */

/* How late a timeout may fire: LATE_NS, or what `timeout LATE_MS` says. */
static uint64_t late_ns = LATE_NS;

/* Checks that an operation that took elapsed ns timed out after timeout_ns, in bounds. */
static void check_bounds(const char *what, uint64_t elapsed, uint64_t timeout_ns)
{
	check_true(what, elapsed >= timeout_ns && elapsed <= timeout_ns + late_ns,
		   "took %llu ms for a %llu ms timeout", (unsigned long long)(elapsed / MS),
		   (unsigned long long)(timeout_ns / MS));
}

struct holder {
	int endpoint;
	int go; /* [a] set when the holder may reply */
	long reply_result;
	long next_result;
};

/* Takes one call, holds the reply until told, replies late, then serves one more. */
static int hold(void *arg)
{
	struct holder *h = arg;
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(HOLD_WAIT_NS);
	long err = sys_ipc_recv(h->endpoint, &m, &x);

	if (err) {
		return (int)-err;
	}
	/* acquire: pairs with the release store in test_timeout() */
	while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE)) {
		sys_sleep_ns(MS);
	}
	h->reply_result = sys_ipc_reply(&m, NULL);
	x = extra_with(HOLD_WAIT_NS);
	h->next_result = sys_ipc_recv(h->endpoint, &m, &x);
	m.words[0]++;
	sys_ipc_reply(&m, NULL);
	return 0;
}

int test_timeout(int argc, char **argv)
{
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(SHORT_NS);
	long ep = sys_endpoint_create();

	if (argc > 0) {
		late_ns = strtoull(argv[0], NULL, 10) * MS;
	}
	if (ep < 0) {
		fatal("endpoint_create", ep);
	}
	uint64_t start = now_ns();
	check("recv with nobody calling", sys_ipc_recv((int)ep, &m, &x), -ETIMEDOUT);
	check_bounds("recv with nobody calling", now_ns() - start, SHORT_NS);
	x = extra_with(0);
	start = now_ns();
	check("recv polling (timeout 0)", sys_ipc_recv((int)ep, &m, &x), -ETIMEDOUT);
	check_bounds("recv polling (timeout 0)", now_ns() - start, 0);

	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 1), .words = {1}};
	x = extra_with(SHORT_NS);
	start = now_ns();
	check("call with nobody receiving", sys_ipc_call((int)ep, &m, &x), -ETIMEDOUT);
	check_bounds("call with nobody receiving", now_ns() - start, SHORT_NS);
	x = extra_with(0);
	check("recv after the call timed out: nothing left queued", sys_ipc_recv((int)ep, &m, &x),
	      -ETIMEDOUT);

	struct holder h = {.endpoint = (int)ep};
	int tid = thread_spawn(hold, &h, 0);
	if (tid < 0) {
		fatal("thread_spawn", tid);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 1), .words = {2}};
	x = extra_with(SHORT_NS);
	start = now_ns();
	check("call to a server that never replies", sys_ipc_call((int)ep, &m, &x), -ETIMEDOUT);
	check_bounds("call to a server that never replies", now_ns() - start, SHORT_NS);
	/* release: pairs with the acquire load in hold() */
	__atomic_store_n(&h.go, 1, __ATOMIC_RELEASE);
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 1), .words = {3}};
	x = extra_with(PROMPT_NS);
	if (check("a call after the timed-out one", sys_ipc_call((int)ep, &m, &x), 0)) {
		check("its reply", (long)m.words[0], 4);
	}
	int64_t status = -1;
	check("join the server thread", thread_join(tid, &status), 0);
	check("the server thread's status", (long)status, 0);
	check("the late reply to the timed-out caller (dropped)", h.reply_result, 0);
	check("the server's next receive", h.next_result, 0);
	finish();
}

int test_server_death(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	long ep = sys_endpoint_create();
	long flag_frame = sys_frame_create(PAGE_SIZE_USER);
	long flag =
	    flag_frame < 0 ? flag_frame : sys_mem_map_frame((int)flag_frame, NULL, PROT_READ);
	if (ep < 0 || flag < 0) {
		fatal("endpoint_create, frame_create or mem_map_frame", ep < 0 ? ep : flag);
	}

	/* A server that dies while it holds our reply. */
	int server = spawn_role("serve-hold", NULL, (int)ep, RECV_RIGHTS, (int)flag_frame);
	struct caller c = {.slot = (int)ep, .timeout_ns = HOLD_WAIT_NS};
	caller_start(&c);
	uint64_t end = now_ns() + PROMPT_NS;
	/* acquire: pairs with the release store in role_serve_hold() */
	while (!__atomic_load_n((uint64_t *)flag, __ATOMIC_ACQUIRE) && now_ns() < end) {
		sys_sleep_ns(MS);
	}
	check("the server received our call", observe((long)*(uint64_t *)flag), HOLD_GOT_CALL);
	check("kill the server", observe(kill_and_reap(server, NULL)), 0);
	check("a call whose server died holding the reply", observe(caller_join(&c)), -EPIPE);

	/* Callers queued on an endpoint whose only receiver dies. */
	int ep2 = new_endpoint();
	server = spawn_role("serve-none", NULL, (int)ep2, RECV_RIGHTS, -1);
	long w = sys_endpoint_mint((int)ep2, 0x5d, CALL_RIGHTS);
	if (w < 0) {
		fatal("endpoint_mint", w);
	}
	sys_cap_delete((int)ep2);
	struct caller queued[2] = {{.slot = (int)w, .timeout_ns = HOLD_WAIT_NS},
				   {.slot = (int)w, .timeout_ns = HOLD_WAIT_NS}};
	caller_start(&queued[0]);
	caller_start(&queued[1]);
	uint32_t me = (uint32_t)sys_getpid();
	check_true("the callers are queued",
		   wait_blocked(me, (uint32_t)queued[0].tid, PROMPT_NS) &&
		       wait_blocked(me, (uint32_t)queued[1].tid, PROMPT_NS),
		   "they did not block within %llu s", (unsigned long long)(PROMPT_NS / S));
	check("kill the only receiver", observe(kill_and_reap(server, NULL)), 0);
	check("queued call 1 when the only receiver died", observe(caller_join(&queued[0])),
	      -EPIPE);
	check("queued call 2 when the only receiver died", observe(caller_join(&queued[1])),
	      -EPIPE);
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 0)};
	struct ipc_extra x = extra_with(WAKE_WAIT_NS);
	check("a call after the only receiver died", observe(sys_ipc_call((int)w, &m, &x)), -EPIPE);
	finish();
}

/* A copy of ep with only rights, made with mint or with cap_copy. */
static long narrow(long ep, uint32_t rights, bool mint)
{
	long slot =
	    mint ? sys_endpoint_mint((int)ep, 0xde1, rights) : sys_cap_copy((int)ep, rights);

	if (slot < 0) {
		fatal(mint ? "endpoint_mint" : "cap_copy", slot);
	}
	return slot;
}

static void check_deletes(bool mint)
{
	const char *how = mint ? "minted" : "copied";
	uint32_t me = (uint32_t)sys_getpid();
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 0)};
	struct ipc_extra x = extra_with(WAKE_WAIT_NS);
	char what[96];

	long ep = sys_endpoint_create();
	long w = narrow(ep, CALL_RIGHTS, mint);
	sys_cap_delete((int)ep);
	snprintf(what, sizeof(what), "call when no capability can receive (%s call cap)", how);
	check(what, observe(sys_ipc_call((int)w, &m, &x)), -EPIPE);
	sys_cap_delete((int)w);

	ep = sys_endpoint_create();
	w = narrow(ep, CALL_RIGHTS, mint);
	struct caller c = {.slot = (int)w, .timeout_ns = WAKE_WAIT_NS};
	caller_start(&c);
	snprintf(what, sizeof(what), "a caller queues (%s call cap)", how);
	check_true(what, wait_blocked(me, (uint32_t)c.tid, PROMPT_NS), "it did not block");
	sys_cap_delete((int)ep);
	snprintf(what, sizeof(what), "queued caller when the last receive cap goes (%s call cap)",
		 how);
	check(what, observe(caller_join(&c)), -EPIPE);
	sys_cap_delete((int)w);

	ep = sys_endpoint_create();
	long r = narrow(ep, RECV_RIGHTS, mint);
	struct caller rc = {.slot = (int)r, .recv = true, .timeout_ns = WAKE_WAIT_NS};
	caller_start(&rc);
	snprintf(what, sizeof(what), "a receiver waits (%s receive cap)", how);
	check_true(what, wait_blocked(me, (uint32_t)rc.tid, PROMPT_NS), "it did not block");
	sys_cap_delete((int)ep);
	snprintf(what, sizeof(what),
		 "waiting receiver when the last call cap goes (%s receive cap)", how);
	check(what, observe(caller_join(&rc)), -EPIPE);
	x = extra_with(WAKE_WAIT_NS);
	snprintf(what, sizeof(what), "recv when no capability can call (%s receive cap)", how);
	check(what, observe(sys_ipc_recv((int)r, &m, &x)), -EPIPE);
	sys_cap_delete((int)r);
}

int test_endpoint_delete(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	check_deletes(true);
	check_deletes(false);
	finish();
}

/* Receives one call on ep; returns its badge, or 0 after a failed check. */
static uint64_t receive_one(long ep, struct ipc_regs *m, const char *what)
{
	static uint8_t buf[64];
	struct ipc_extra x = extra_with(PROMPT_NS);

	x.recv_buf = (uint64_t)(uintptr_t)buf;
	x.recv_max = sizeof(buf);
	*m = (struct ipc_regs){0};
	return check(what, observe(sys_ipc_recv((int)ep, m, &x)), 0) ? m->badge : 0;
}

static uint64_t frames_free(void)
{
	struct sys_info info;

	sys_sys_info(&info);
	return info.frames_free;
}

/* A client of ep with badge, started in a new process; it calls once and waits. */
static int start_client(long ep, uint64_t badge)
{
	long c = sys_endpoint_mint((int)ep, badge, CALL_RIGHTS);

	if (c < 0) {
		fatal("endpoint_mint", c);
	}
	int process = spawn_role("client-once", NULL, (int)c, CALL_RIGHTS, -1);
	sys_cap_delete((int)c);
	return process;
}

static void check_killed(int process, const char *what)
{
	int64_t status = 0;

	if (check(what, observe(kill_and_reap(process, &status)), 0)) {
		check("a killed client's status", observe((long)status), EXIT_KILLED);
	}
}

int test_client_death(int argc, char **argv)
{
	static uint8_t reply_buf[64] = "a reply nobody will read";
	struct ipc_regs m;

	(void)argc;
	(void)argv;
	int ep = new_endpoint();

	/* Killed while we hold its reply; the reply carries a buffer and a frame. */
	int client = start_client(ep, 0xc1);
	check("badge of the first client", observe((long)receive_one(ep, &m, "receive a call")),
	      0xc1);
	check_killed(client, "kill the client whose reply we hold");
	uint64_t before = frames_free();
	long frame = sys_frame_create(LEAK_FRAME);
	if (frame < 0) {
		fatal("frame_create", frame);
	}
	struct ipc_extra x = extra_with(0);
	x.send_buf = (uint64_t)(uintptr_t)reply_buf;
	x.send_len = sizeof(reply_buf);
	x.send_cap = (uint32_t)frame;
	x.send_cap_rights = CAP_RIGHTS_ALL;
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ + 1, 1), .words = {43}};
	check("reply to a killed client", observe(sys_ipc_reply(&m, &x)), 0);
	sys_cap_delete((int)frame);
	uint64_t after = frames_free();
	check_true("the frame sent with the dropped reply is freed", before < after + LEAK_SLACK,
		   "%llu of its %llu frames are still in use", (unsigned long long)(before - after),
		   (unsigned long long)(LEAK_FRAME / PAGE_SIZE_USER));

	/* Nothing of the dropped reply goes out with our next message. */
	long ep2 = sys_endpoint_create();
	struct caller r = {.slot = (int)ep2, .recv = true, .timeout_ns = PROMPT_NS};
	caller_start(&r);
	check_true("a receiver waits",
		   wait_blocked((uint32_t)sys_getpid(), (uint32_t)r.tid, PROMPT_NS),
		   "it did not block");
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 0)};
	check("a call whose receiver ends without replying",
	      observe(sys_ipc_call((int)ep2, &m, NULL)), -EPIPE);
	check("the receiver's recv", observe(caller_join(&r)), 0);
	check_no_cap("a register-only call after a dropped reply carries no capability",
		     (uint32_t)observe(r.cap));
	sys_cap_delete((int)ep2);

	/* The server goes on: another client, in a thread of ours. */
	long w = sys_endpoint_mint((int)ep, 0xc2, CALL_RIGHTS);
	struct caller c = {.slot = (int)w, .word = 7, .timeout_ns = PROMPT_NS};
	caller_start(&c);
	check("badge of the next client",
	      observe((long)receive_one(ep, &m, "receive the next call")), 0xc2);
	m.words[0]++;
	check("reply to the next client", observe(sys_ipc_reply(&m, NULL)), 0);
	check("the next client's call", observe(caller_join(&c)), 0);
	check("the next client's reply", observe((long)c.word), 8);

	/* Killed while its call is queued: the call is withdrawn. */
	client = start_client(ep, 0xc3);
	check_true("the client's call is queued", wait_blocked(pid_of(client), 0, PROMPT_NS),
		   "it did not block");
	check_killed(client, "kill a client whose call is queued");
	x = extra_with(0);
	check("recv after the queued caller was killed", observe(sys_ipc_recv((int)ep, &m, &x)),
	      -ETIMEDOUT);

	/* Killed while held, then reply_recv: the reply is dropped, the next call arrives. */
	client = start_client(ep, 0xc4);
	check("badge of the fourth client", observe((long)receive_one(ep, &m, "receive a call")),
	      0xc4);
	check_killed(client, "kill the client whose reply we hold");
	c = (struct caller){.slot = (int)w, .word = 9, .timeout_ns = PROMPT_NS};
	caller_start(&c);
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ + 1, 1), .words = {43}};
	x = extra_with(PROMPT_NS);
	x.send_buf = (uint64_t)(uintptr_t)reply_buf;
	x.send_len = sizeof(reply_buf);
	if (check("reply_recv: reply to a killed client, receive the next call",
		  observe(sys_ipc_reply_recv((int)ep, &m, &x)), 0)) {
		check("the call received after the dropped reply", observe((long)m.words[0]), 9);
		check("its badge", observe((long)m.badge), 0xc2);
		m.words[0]++;
		check("reply to it", observe(sys_ipc_reply(&m, NULL)), 0);
	}
	check("the client thread's call", observe(caller_join(&c)), 0);
	check("the client thread's reply", observe((long)c.word), 10);
	x = extra_with(0);
	check("recv at the end: nothing left queued", observe(sys_ipc_recv((int)ep, &m, &x)),
	      -ETIMEDOUT);
	finish();
}
