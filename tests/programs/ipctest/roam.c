/*
 * roam: the fast path between threads that may run on any CPU. Client
 * threads and server threads of one process, none pinned, exchange
 * register-only calls on one endpoint, so that a thread is taken to run
 * by a partner on another CPU while its own CPU may still be leaving its
 * stack, over and over. Each server checks that each client's sequence
 * numbers arrive once each and in order, whichever server got the one
 * before; each client checks every reply's number and badge.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ipctest.h"

#define ROAM_CLIENTS 4
#define ROAM_SERVERS 2
#define ROAM_CALLS   3000 /* per client */
#define ROAM_LABEL   0x40a

struct roam {
	int endpoint;
	int client_caps[ROAM_CLIENTS]; /* badged i + 1 */
	uint64_t next[ROAM_CLIENTS];   /* [a] the sequence number client i sends next */
	uint64_t served;	       /* [a] */
};

static struct roam roam;

static int roam_serve(void *arg)
{
	struct ipc_regs m = {0};
	long err = sys_ipc_recv(roam.endpoint, &m, NULL);

	(void)arg;
	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		uint64_t client = m.badge - 1;
		if (check_true("a call from a known client", client < ROAM_CLIENTS, "badge %llu",
			       (unsigned long long)m.badge)) {
			/* The call before came through either server: the kernel ordered the two.
			 */
			uint64_t want = __atomic_load_n(&roam.next[client], __ATOMIC_RELAXED);
			check_true("calls arrive once each, in order", m.words[0] == want,
				   "client %llu sent %llu, expected %llu",
				   (unsigned long long)client, (unsigned long long)m.words[0],
				   (unsigned long long)want);
			__atomic_store_n(&roam.next[client], m.words[0] + 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_add(&roam.served, 1, __ATOMIC_RELAXED);
		m = (struct ipc_regs){.info = IPC_INFO(ROAM_LABEL, 2),
				      .words = {m.words[0], m.badge}};
		err = sys_ipc_reply_recv(roam.endpoint, &m, NULL);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	sys_ipc_reply(&m, NULL);
	return (int)-err;
}

static int roam_client(void *arg)
{
	int i = (int)(intptr_t)arg;
	long err = 0;

	for (uint64_t seq = 0; !err && seq < ROAM_CALLS && !failures(); seq++) {
		struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 1), .words = {seq}};
		err = sys_ipc_call(roam.client_caps[i], &m, NULL);
		if (!err) {
			check("a reply's sequence number", (long)m.words[0], (long)seq);
			check("a reply's badge", (long)m.words[1], i + 1);
		}
	}
	return (int)-err;
}

static void join_all(const int *tids, int n, const char *what)
{
	char name[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s %d", what, i);
		check_joined(tids[i], name);
	}
}

int test_roam(int argc, char **argv)
{
	int servers[ROAM_SERVERS], clients[ROAM_CLIENTS];

	(void)argc;
	(void)argv;
	int ep = new_endpoint();
	roam.endpoint = ep;
	for (int i = 0; i < ROAM_CLIENTS; i++) {
		long minted = sys_endpoint_mint(ep, (uint64_t)i + 1, CALL_RIGHTS);
		if (minted < 0) {
			fatal("endpoint_mint", minted);
		}
		roam.client_caps[i] = (int)minted;
	}
	for (int i = 0; i < ROAM_SERVERS; i++) {
		servers[i] = thread_spawn(roam_serve, NULL, 0);
		if (servers[i] < 0) {
			fatal("thread_spawn of a server", servers[i]);
		}
	}
	for (int i = 0; i < ROAM_CLIENTS; i++) {
		clients[i] = thread_spawn(roam_client, (void *)(intptr_t)i, 0);
		if (clients[i] < 0) {
			fatal("thread_spawn of a client", clients[i]);
		}
	}
	join_all(clients, ROAM_CLIENTS, "client");
	for (int i = 0; i < ROAM_SERVERS; i++) {
		struct ipc_regs m = {.info = IPC_INFO(LABEL_STOP, 0)};
		check("stopping a server", sys_ipc_call(ep, &m, NULL), 0);
	}
	join_all(servers, ROAM_SERVERS, "server");
	check("calls served", (long)roam.served, ROAM_CLIENTS * ROAM_CALLS);
	printf("ipctest roam: %llu calls served between %d clients and %d servers, none pinned\n",
	       (unsigned long long)roam.served, ROAM_CLIENTS, ROAM_SERVERS);
	finish();
}
