/*
 * wakerace: a fast-path call that takes a server off another CPU while
 * that server, queued for its next call, is still waking the caller it
 * has just replied to.
 *
 * The caller (slow, with a struct ipc_extra) and the fast client are both
 * pinned to CPU 0; the server runs on CPU 1, unpinned so that the fast
 * path may take it. Each round the server replies to the caller with a
 * generic reply_recv: it queues itself for the next call, then wakes the
 * caller onto CPU 0's run queue. The fast client calls the moment it sees
 * the server blocked, and so claims it while that wake-up runs; the fast
 * path then waits for the server to leave CPU 1. A fast path that held
 * CPU 0's run queue lock while waiting would never see it leave: the
 * wake-up on CPU 1 waits for that very lock. Left to chance the window is
 * a few hundred instructions wide and the fast call almost never lands in
 * it: test_ipc.py boots with inject=wakeclaim, which holds the server's
 * wake-up until the fast call has claimed it, and reads from the trace
 * that it did so in every round.
 */
#include <stdint.h>
#include <stdio.h>

#include "ipctest.h"

#define RACE_ROUNDS	100
#define RACE_SERVER_CPU 1
#define RACE_CLIENT_CPU 0
#define LABEL_SLOW_CALL 0x5c0
#define LABEL_FAST_CALL 0xfc0
#define RACE_TIMEOUT_NS (60 * S)

struct race {
	int endpoint;
	int server_tid;
	volatile bool armed;	 /* the server is about to reply to the slow caller */
	volatile bool fast_done; /* the fast client's call of this round is over */
};

static struct race race;

static int race_serve(void *arg)
{
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(RACE_TIMEOUT_NS);
	long err = sys_thread_set_cpu(RACE_SERVER_CPU);

	(void)arg;
	if (!err) {
		err = sys_ipc_recv(race.endpoint, &m, &x);
	}
	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		if (IPC_INFO_LABEL(m.info) == LABEL_SLOW_CALL) {
			/* Back to CPU 1, unpinned: the fast path may take us from there. */
			err = sys_thread_set_cpu(RACE_SERVER_CPU);
			err = err ? err : sys_thread_set_cpu(-1);
			race.armed = true;
		}
		m = (struct ipc_regs){.info = IPC_INFO(LABEL_SEQ, 1), .words = {m.words[0] + 1}};
		x = extra_with(RACE_TIMEOUT_NS);
		err = err ? err : sys_ipc_reply_recv(race.endpoint, &m, &x);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	sys_ipc_reply(&m, NULL);
	return (int)-err;
}

/* Calls the moment the server blocks after arming, each round. */
static int race_fast(void *arg)
{
	long err = sys_thread_set_cpu(RACE_CLIENT_CPU);
	uint32_t pid = (uint32_t)sys_getpid();

	(void)arg;
	for (uint64_t round = 0; !err && round < RACE_ROUNDS && !failures(); round++) {
		uint64_t deadline = now_ns() + RACE_TIMEOUT_NS;
		while (!race.armed && now_ns() < deadline) {
			/* spin: on CPU 0 now, so as to call the moment the server blocks */
		}
		race.armed = false;
		while (!all_blocked(pid, (uint32_t)race.server_tid) && now_ns() < deadline) {
		}
		struct ipc_regs m = {.info = IPC_INFO(LABEL_FAST_CALL, 1), .words = {round}};
		err = sys_ipc_call(race.endpoint, &m, NULL);
		if (!err) {
			check("the fast call's reply", (long)m.words[0], (long)round + 1);
		}
		race.fast_done = true;
	}
	return (int)-err;
}

int test_wakerace(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int ep = new_endpoint();
	race.endpoint = ep;
	if (!check("pin the slow caller", sys_thread_set_cpu(RACE_CLIENT_CPU), 0)) {
		finish();
	}
	race.server_tid = thread_spawn(race_serve, NULL, 0);
	if (race.server_tid < 0) {
		fatal("thread_spawn of the server", race.server_tid);
	}
	int fast = thread_spawn(race_fast, NULL, 0);
	if (fast < 0) {
		fatal("thread_spawn of the fast client", fast);
	}
	for (uint64_t round = 0; round < RACE_ROUNDS && !failures(); round++) {
		struct ipc_regs m = {.info = IPC_INFO(LABEL_SLOW_CALL, 1), .words = {round}};
		struct ipc_extra x = extra_with(RACE_TIMEOUT_NS);
		race.fast_done = false;
		if (!check("the slow call", sys_ipc_call(ep, &m, &x), 0)) {
			break;
		}
		check("the slow call's reply", (long)m.words[0], (long)round + 1);
		uint64_t deadline = now_ns() + RACE_TIMEOUT_NS;
		while (!race.fast_done && now_ns() < deadline) {
			sys_yield();
		}
		check_true("the fast call of the round returns", race.fast_done, "round %llu",
			   (unsigned long long)round);
	}
	check_joined(fast, "the fast client");
	struct ipc_regs m = {.info = IPC_INFO(LABEL_STOP, 0)};
	check("stopping the server", sys_ipc_call(ep, &m, NULL), 0);
	check_joined(race.server_tid, "the server");
	printf("ipctest wakerace: %d rounds\n", RACE_ROUNDS);
	finish();
}
