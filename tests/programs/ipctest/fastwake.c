/*
 * fastwake: threads blocked on the IPC fast path and woken by anyone but
 * a fast-path partner. Such a thread keeps nothing on its kernel stack; it
 * resumes through what the syscall entry prepared there, collects its
 * result and drops the endpoint reference its operation held.
 *   - A call with a struct ipc_extra reaches a server thread waiting in a
 *     register-only reply_recv: the server gets the words and the badge in
 *     its registers, and its register-only reply reaches the caller.
 *   - A client process waiting on the fast path for its reply is killed:
 *     it dies with the kill's status, the server's reply to it is dropped,
 *     and serving goes on.
 *   - A server process waiting in a register-only reply_recv is killed: it
 *     dies with the kill's status and, its reference gone, a call on the
 *     endpoint fails with -EPIPE (a reference left counted would leave the
 *     call waiting until its timeout instead).
 * It observes (observe()) every call's result and, when 0, its answer's
 * badge and word 1 (WAKE_WORD + 1), and each kill's result and the killed
 * process's status, in that order.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ipctest.h"

#define WAKE_BADGE   0xa4e
#define CLIENT_BADGE 0xc11
#define SERVER_BADGE 0x5e7
#define LABEL_ANSWER 0xa45 /* words: the badge, word 0 + 1 */
#define WAKE_WORD    41
#define HOLD_POLL_NS (1 * MS)

struct wake_server {
	int endpoint;
	volatile bool holding;	 /* it received a client-once call and holds its reply */
	volatile bool may_reply; /* the test let it answer the call it holds */
};

/* Serves registers only; holds the reply to a LABEL_SEQ call until allowed to answer. */
static int wake_serve(void *arg)
{
	struct wake_server *s = arg;
	struct ipc_regs m = {0};
	long err = sys_ipc_recv(s->endpoint, &m, NULL);

	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		if (IPC_INFO_LABEL(m.info) == LABEL_SEQ) {
			s->holding = true;
			while (!s->may_reply) {
				sys_sleep_ns(HOLD_POLL_NS);
			}
		}
		m = (struct ipc_regs){.info = IPC_INFO(LABEL_ANSWER, 2),
				      .words = {m.badge, m.words[0] + 1}};
		err = sys_ipc_reply_recv(s->endpoint, &m, NULL);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	sys_ipc_reply(&m, NULL);
	return (int)-err;
}

/* A call of slot carrying WAKE_WORD, with an ipc_extra or without: its result. */
static long call_word(int slot, bool extra, struct ipc_regs *m)
{
	struct ipc_extra x = extra_with(PROMPT_NS);

	*m = (struct ipc_regs){.info = IPC_INFO(LABEL_ANSWER, 1), .words = {WAKE_WORD}};
	return sys_ipc_call(slot, m, extra ? &x : NULL);
}

static void check_answer(const char *what, long err, const struct ipc_regs *m, uint64_t badge)
{
	if (check(what, observe(err), 0)) {
		check("the answer carries the caller's badge", observe((long)m->words[0]),
		      (long)badge);
		check("the answer carries word 0 + 1", observe((long)m->words[1]), WAKE_WORD + 1);
	}
}

static void check_generic_call_wakes(int badged, int server_tid)
{
	struct ipc_regs m;

	check_answer("a register-only call", call_word(badged, false, &m), &m, WAKE_BADGE);
	check_true("the server waits in its register-only reply_recv",
		   wait_blocked((uint32_t)sys_getpid(), (uint32_t)server_tid, PROMPT_NS),
		   "it did not block");
	check_answer("a call with an ipc_extra to it", call_word(badged, true, &m), &m, WAKE_BADGE);
	check_answer("a register-only call after it", call_word(badged, false, &m), &m, WAKE_BADGE);
}

static void check_client_killed(long ep, struct wake_server *s, int badged)
{
	long client_cap = sys_endpoint_mint((int)ep, CLIENT_BADGE, CALL_RIGHTS);
	int64_t status = 0;
	struct ipc_regs m;

	if (client_cap < 0) {
		fatal("endpoint_mint", client_cap);
	}
	int client = spawn_role("client-once", NULL, (int)client_cap, CALL_RIGHTS, -1);
	sys_cap_delete((int)client_cap);
	uint64_t deadline = now_ns() + PROMPT_NS;
	while (!s->holding && now_ns() < deadline) {
		sys_sleep_ns(HOLD_POLL_NS);
	}
	if (!check_true("the server holds the client's call", s->holding, "no call came")) {
		return;
	}
	check_true("the client waits for its reply", wait_blocked(pid_of(client), 0, PROMPT_NS),
		   "it did not block");
	if (check("kill the waiting client", observe(kill_and_reap(client, &status)), 0)) {
		check("the killed client's status", observe((long)status), EXIT_KILLED);
	}
	s->may_reply = true;
	check_answer("a call once the dropped reply is sent", call_word(badged, false, &m), &m,
		     WAKE_BADGE);
}

static void check_server_killed(void)
{
	long ep = sys_endpoint_create();
	long caller = ep < 0 ? ep : sys_endpoint_mint((int)ep, SERVER_BADGE, CALL_RIGHTS);
	int64_t status = 0;
	struct ipc_regs m;

	if (caller < 0) {
		fatal("endpoint_create or endpoint_mint", caller);
	}
	int server = spawn_role("serve-regs", NULL, (int)ep, RECV_RIGHTS, -1);
	sys_cap_delete((int)ep); /* the server process holds the only receiving capability */
	check_answer("a call to the server process", call_word((int)caller, false, &m), &m,
		     SERVER_BADGE);
	check_answer("a second one, on the fast path both ways", call_word((int)caller, false, &m),
		     &m, SERVER_BADGE);
	check_true("the server process waits in its reply_recv",
		   wait_blocked(pid_of(server), 0, PROMPT_NS), "it did not block");
	if (check("kill the waiting server", observe(kill_and_reap(server, &status)), 0)) {
		check("the killed server's status", observe((long)status), EXIT_KILLED);
	}
	check("a call once the only receiver died", observe(call_word((int)caller, true, &m)),
	      -EPIPE);
	sys_cap_delete((int)caller);
}

int test_fastwake(int argc, char **argv)
{
	struct wake_server s = {0};
	struct ipc_regs m;

	(void)argc;
	(void)argv;
	long ep = sys_endpoint_create();
	long badged = ep < 0 ? ep : sys_endpoint_mint((int)ep, WAKE_BADGE, CALL_RIGHTS);
	if (badged < 0) {
		fatal("endpoint_create or endpoint_mint", badged);
	}
	s.endpoint = (int)ep;
	int server = thread_spawn(wake_serve, &s, 0);
	if (server < 0) {
		fatal("thread_spawn", server);
	}
	check_generic_call_wakes((int)badged, server);
	check_client_killed(ep, &s, (int)badged);
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	check("stopping the server", sys_ipc_call((int)ep, &m, NULL), 0);
	check_joined(server, "the server");
	sys_cap_delete((int)badged);
	sys_cap_delete((int)ep);

	check_server_killed();
	finish();
}

/* Serves registers only: each answer carries the caller's badge and word 0 + 1. */
int role_serve_regs(int argc, char **argv)
{
	struct wake_server s = {.endpoint = ROLE_SLOT_ENDPOINT};

	(void)argc;
	(void)argv;
	check("serve-regs's serving", wake_serve(&s), 0);
	exit(failures() ? 1 : 0);
}
