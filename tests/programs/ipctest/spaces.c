/*
 * spaces: the fast path switching between threads of one process and of
 * two. A server thread serves, all three on CPU 0 and with registers
 * only, a client thread of its own process and a client-seq process, so
 * that the fast path hands the CPU from a thread to one of the same
 * process (the address space stays loaded) and to one of another (it is
 * loaded) in every order. The server checks that each client's sequence
 * numbers arrive in order, none missing or repeated; each client checks
 * every reply's number and badge in its own memory. A switch that left
 * the wrong address space loaded would show as a wrong word, a fault or
 * a lost call.
 */
#include <stdint.h>
#include <stdio.h>

#include "ipctest.h"

#define SPACES_CALLS   3000 /* per client */
#define SPACES_CPU     0
#define SPACES_WAIT_NS (120 * S)
#define BADGE_PROCESS  1
#define BADGE_THREAD   2
#define BADGES	       3 /* the largest badge, plus one */

struct spaces_server {
	int endpoint;
	uint64_t next[BADGES]; /* the sequence number each badge sends next */
	uint64_t served;
};

static int spaces_serve(void *arg)
{
	struct spaces_server *s = arg;
	struct ipc_regs m = {0};
	long err = sys_thread_set_cpu(SPACES_CPU);

	if (!err) {
		err = sys_ipc_recv(s->endpoint, &m, NULL);
	}
	while (!err) {
		if (check_true("a call from a known client",
			       m.badge == BADGE_PROCESS || m.badge == BADGE_THREAD, "badge %llu",
			       (unsigned long long)m.badge)) {
			check_true(
			    "calls arrive once each, in order", m.words[0] == s->next[m.badge],
			    "badge %llu sent %llu, expected %llu", (unsigned long long)m.badge,
			    (unsigned long long)m.words[0], (unsigned long long)s->next[m.badge]);
			s->next[m.badge] = m.words[0] + 1;
		}
		m.words[1] = m.badge;
		m.info = IPC_INFO(LABEL_SEQ + 1, 2);
		if (++s->served == 2 * SPACES_CALLS) {
			return (int)-sys_ipc_reply(&m, NULL);
		}
		err = sys_ipc_reply_recv(s->endpoint, &m, NULL);
	}
	return (int)-err;
}

/* The client thread of the server's process: client-seq's calls, through the slot in arg. */
static int spaces_client(void *arg)
{
	int slot = (int)(intptr_t)arg;
	long err = sys_thread_set_cpu(SPACES_CPU);

	for (uint64_t seq = 0; !err && seq < SPACES_CALLS && !failures(); seq++) {
		struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 2), .words = {seq, BADGE_THREAD}};
		err = sys_ipc_call(slot, &m, NULL);
		if (!err) {
			check("the thread's reply: its sequence number", (long)m.words[0],
			      (long)seq);
			check("the thread's reply: its badge", (long)m.words[1], BADGE_THREAD);
		}
	}
	return (int)-err;
}

int test_spaces(int argc, char **argv)
{
	struct spaces_server s = {0};
	char arg[32];
	int64_t status = -1;

	(void)argc;
	(void)argv;
	int ep = new_endpoint();
	s.endpoint = ep;
	long for_process = sys_endpoint_mint(ep, BADGE_PROCESS, CALL_RIGHTS);
	long for_thread = sys_endpoint_mint(ep, BADGE_THREAD, CALL_RIGHTS);
	if (for_process < 0 || for_thread < 0) {
		fatal("endpoint_mint", for_process < 0 ? for_process : for_thread);
	}
	int server = thread_spawn(spaces_serve, &s, 0);
	if (server < 0) {
		fatal("thread_spawn of the server", server);
	}
	snprintf(arg, sizeof(arg), "%d:0:%d", SPACES_CALLS, SPACES_CPU);
	int child = spawn_role("client-seq", arg, (int)for_process, CALL_RIGHTS, -1);
	sys_cap_delete((int)for_process);
	int client = thread_spawn(spaces_client, (void *)(intptr_t)for_thread, 0);
	if (client < 0) {
		fatal("thread_spawn of the client", client);
	}
	long err = reap(child, &status, SPACES_WAIT_NS);
	if (!check("the client process finishes its calls", err, 0)) {
		finish(); /* kills the child; our exit ends the threads */
	}
	check("the client process's replies (exit status)", (long)status, 0);
	/* The server ends once both clients' calls are served, or at its first error. */
	check_joined(server, "the server thread");
	if (failures()) {
		finish();
	}
	check_joined(client, "the client thread");
	check("calls served", (long)s.served, 2 * SPACES_CALLS);
	printf("ipctest spaces: %llu calls served, threads of one process and of two in turn\n",
	       (unsigned long long)s.served);
	finish();
}
