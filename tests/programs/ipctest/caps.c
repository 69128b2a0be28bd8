/*
 * caps: what capabilities do on the way through IPC.
 *
 * `frame [READ_SEED WRITE_SEED]` sends a frame to another process (the
 * serve-frame role), which maps it and reads the pattern of READ_SEED
 * written here, and checks the rights it received: sent read-only, the
 * frame cannot be mapped writable, written or copied back to more rights,
 * whatever rights the sender asked to pass on; sent writable, what the
 * receiver writes (the pattern of WRITE_SEED) shows up here. A capability
 * without the grant right cannot be sent at all. It prints the FNV-1a of
 * what the receiver read and of what it wrote, as read back here, so that
 * whoever chose the seeds can check them without trusting these checks.
 *
 * `badge [B0 B1 B2]` mints three badged copies of one endpoint (badges
 * B0, B1, B2, nonzero), gives one to each of three client processes, and
 * checks that every call arrives with the badge of its client's copy. It
 * prints the badge each client's call arrived with, so that whoever chose
 * them can check the answer without trusting these checks.
 *
 * `cap-drop` sends an endpoint copy to a server thread that receives with
 * registers only, so has nowhere to put it: once in its first, generic
 * receive, once waiting on the fast path (in a register-only reply_recv,
 * after a register-only call). The copy must be dropped: a receiver on
 * that endpoint gets -EPIPE as soon as our own copy, the last other one
 * that can call, goes. Each time it observes (observe()) the call's
 * result, its reply's word 0, the slot of a capability that came back
 * (IPC_NO_CAP) and the receiver's result.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/fnv.h"
#include "ipctest.h"

#define READ_SEED    0x5eed
#define WRITE_SEED   0x77
#define FRAME_RIGHTS (CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define RO_RIGHTS    (CAP_RIGHT_READ | CAP_RIGHT_GRANT)
#define NCLIENTS     3

static uint8_t pattern[FRAME_BYTES];

/* The seeds of this run's patterns: the one written here, the one the receiver writes. */
static uint64_t read_seed = READ_SEED, write_seed = WRITE_SEED;

/*
 * Sends frame with send_rights; the receiver checks it got want_rights and
 * writes the pattern of write (0: none). Returns the result; the FNV-1a of
 * what the receiver read goes to *read.
 */
static long send_frame(int ep, int frame, uint32_t send_rights, uint32_t want_rights,
		       uint64_t write, uint64_t *read, const char *what)
{
	struct ipc_regs m = {.info = IPC_INFO(LABEL_FRAME, 3),
			     .words = {read_seed, want_rights, write}};
	struct ipc_extra x = extra_with(PROMPT_NS);
	char text[96];

	x.send_cap = (uint32_t)frame;
	x.send_cap_rights = send_rights;
	long err = sys_ipc_call(ep, &m, &x);
	if (!err) {
		snprintf(text, sizeof(text), "%s: the receiver's failed checks", what);
		check(text, (long)m.words[0], 0);
		check_no_cap("no capability came back", x.recv_cap);
		*read = m.words[1];
	}
	return err;
}

int test_frame(int argc, char **argv)
{
	struct cap_info info;
	int64_t status;
	uint64_t read = 0, unused;

	if (argc > 1) {
		read_seed = strtoull(argv[0], NULL, 0);
		write_seed = strtoull(argv[1], NULL, 0);
	}
	long frame = sys_frame_create(FRAME_BYTES);
	long ep = sys_endpoint_create();
	if (frame < 0 || ep < 0) {
		fatal("frame_create or endpoint_create", frame < 0 ? frame : ep);
	}
	for (uint64_t i = 0; i < FRAME_BYTES; i++) {
		pattern[i] = pattern_byte(read_seed, i);
	}
	check("frame_write of the pattern", sys_frame_write((int)frame, 0, pattern, FRAME_BYTES),
	      0);
	int server = spawn_role("serve-frame", NULL, (int)ep, RECV_RIGHTS, -1);

	check(
	    "frame sent read-only",
	    send_frame((int)ep, (int)frame, RO_RIGHTS, RO_RIGHTS, 0, &read, "frame sent read-only"),
	    0);
	printf("ipctest frame: the receiver read fnv1a 0x%llx\n", (unsigned long long)read);
	long ro = sys_cap_copy((int)frame, RO_RIGHTS);
	check("read-only copy sent asking for every right",
	      send_frame((int)ep, (int)ro, CAP_RIGHTS_ALL, RO_RIGHTS, 0, &unused,
			 "read-only copy sent asking for every right"),
	      0);
	long no_grant = sys_cap_copy((int)frame, CAP_RIGHT_READ | CAP_RIGHT_WRITE);
	check("sending a frame without the grant right",
	      send_frame((int)ep, (int)no_grant, CAP_RIGHTS_ALL, 0, 0, &unused, "no grant"),
	      -EACCES);
	check("frame sent writable",
	      send_frame((int)ep, (int)frame, FRAME_RIGHTS, FRAME_RIGHTS, write_seed, &unused,
			 "frame sent writable"),
	      0);
	check("frame_read of what the receiver wrote",
	      sys_frame_read((int)frame, 0, pattern, FRAME_BYTES), 0);
	for (uint64_t i = 0; i < FRAME_BYTES; i++) {
		if (!check_true("the receiver's writes are in our frame",
				pattern[i] == pattern_byte(write_seed, i),
				"byte %llu is %#x, want %#x", (unsigned long long)i, pattern[i],
				pattern_byte(write_seed, i))) {
			break;
		}
	}
	printf("ipctest frame: read back fnv1a 0x%llx of what the receiver wrote\n",
	       (unsigned long long)ttrace_fnv1a(TTRACE_FNV_OFFSET, pattern, FRAME_BYTES));
	check("identify our frame", sys_cap_identify((int)frame, &info), 0);
	check("our frame kept its rights", info.rights, FRAME_RIGHTS);

	struct ipc_regs m = {.info = IPC_INFO(LABEL_STOP, 0)};
	struct ipc_extra x = extra_with(PROMPT_NS);
	check("stopping the receiver", sys_ipc_call((int)ep, &m, &x), 0);
	if (check("the receiver ends", reap(server, &status, PROMPT_NS), 0)) {
		check("the receiver's exit status", (long)status, 0);
	}
	finish();
}

int test_badge(int argc, char **argv)
{
	uint64_t badges[NCLIENTS] = {0x1b, 0x2b00, 0x3b0000};
	int clients[NCLIENTS];
	uint64_t seen[NCLIENTS] = {0};
	char arg[8], what[64];

	for (int i = 0; i < NCLIENTS && i < argc; i++) {
		badges[i] = strtoull(argv[i], NULL, 0);
	}
	int ep = new_endpoint();
	for (int i = 0; i < NCLIENTS; i++) {
		long minted = sys_endpoint_mint((int)ep, badges[i], CALL_RIGHTS);
		if (minted < 0) {
			fatal("endpoint_mint", minted);
		}
		snprintf(arg, sizeof(arg), "%d", i);
		clients[i] = spawn_role("client-badge", arg, (int)minted, CALL_RIGHTS, -1);
		sys_cap_delete((int)minted);
	}
	for (int n = 0; n < NCLIENTS; n++) {
		struct ipc_regs m = {0};
		struct ipc_extra x = extra_with(PROMPT_NS);
		long err = sys_ipc_recv((int)ep, &m, &x);
		if (!check("receiving a client's call", err, 0)) {
			break;
		}
		uint64_t who = m.words[0];
		if (!check_true("the client says who it is", who < NCLIENTS, "client %llu",
				(unsigned long long)who)) {
			continue;
		}
		seen[who] = m.badge;
		m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ + 1, 1), .words = {m.badge}};
		check("reply to a client", sys_ipc_reply(&m, NULL), 0);
	}
	for (int i = 0; i < NCLIENTS; i++) {
		int64_t status = -1;
		printf("ipctest badge: client %d's call came with badge 0x%llx\n", i,
		       (unsigned long long)seen[i]);
		snprintf(what, sizeof(what), "badge the server saw for client %d", i);
		check(what, (long)seen[i], (long)badges[i]);
		snprintf(what, sizeof(what), "client %d ends", i);
		if (check(what, reap(clients[i], &status, PROMPT_NS), 0)) {
			snprintf(what, sizeof(what), "client %d agrees on its badge (exit status)",
				 i);
			check(what, (long)status, 0);
		}
	}
	finish();
}

/* Serves the endpoint arg with registers only, adding 1 to word 0, until LABEL_STOP. */
static int serve_registers(void *arg)
{
	int ep = (int)(intptr_t)arg;
	struct ipc_regs m = {0};
	long err = sys_ipc_recv(ep, &m, NULL);

	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		m.words[0]++;
		err = sys_ipc_reply_recv(ep, &m, NULL);
	}
	sys_ipc_reply(&m, NULL);
	return (int)err;
}

/* Makes warm_calls register-only calls to ep's server, then checks it drops an endpoint sent. */
static void check_dropped(long ep, int warm_calls, const char *where)
{
	uint32_t me = (uint32_t)sys_getpid();
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 1)};
	struct ipc_extra x = extra_with(PROMPT_NS);
	char what[96];

	for (int i = 0; i < warm_calls; i++) {
		check("a register-only call first", sys_ipc_call((int)ep, &m, NULL), 0);
	}
	long sent = sys_endpoint_create();
	long r = sent < 0 ? sent : sys_cap_copy((int)sent, RECV_RIGHTS);
	if (r < 0) {
		fatal("endpoint_create or cap_copy", r);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 1), .words = {7}};
	x.send_cap = (uint32_t)sent;
	x.send_cap_rights = CALL_RIGHTS;
	snprintf(what, sizeof(what), "a call carrying an endpoint to %s", where);
	if (check(what, observe(sys_ipc_call((int)ep, &m, &x)), 0)) {
		check("its reply", observe((long)m.words[0]), 8);
		check_no_cap("no capability came back", (uint32_t)observe(x.recv_cap));
	}
	struct caller rc = {.slot = (int)r, .recv = true, .timeout_ns = PROMPT_NS};
	caller_start(&rc);
	check_true("a receiver waits on the endpoint sent",
		   wait_blocked(me, (uint32_t)rc.tid, PROMPT_NS), "it did not block");
	sys_cap_delete((int)sent);
	snprintf(what, sizeof(what), "that receiver once our copy goes (sent to %s)", where);
	check(what, observe(caller_join(&rc)), -EPIPE);
	sys_cap_delete((int)r);
}

int test_cap_drop(int argc, char **argv)
{
	static const char *const where[] = {"a server in its first receive",
					    "a server waiting on the fast path"};

	(void)argc;
	(void)argv;
	for (int warm_calls = 0; warm_calls < 2; warm_calls++) {
		int ep = new_endpoint();
		int tid = thread_spawn(serve_registers, (void *)(intptr_t)ep, 0);
		if (tid < 0) {
			fatal("thread_spawn", tid);
		}
		check_dropped(ep, warm_calls, where[warm_calls]);
		struct ipc_regs m = {.info = IPC_INFO(LABEL_STOP, 0)};
		check("stopping the server", sys_ipc_call((int)ep, &m, NULL), 0);
		int64_t status = -1;
		check("join the server thread", thread_join(tid, &status), 0);
		check("the server thread's status", (long)status, 0);
		sys_cap_delete((int)ep);
	}
	finish();
}
