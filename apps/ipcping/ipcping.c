/*
 * ipcping: IPC round trips, measured in TSC cycles. A server thread and a
 * client thread of this process talk over a fresh endpoint, pinned either
 * to one CPU or to two; the fast path is a register-only call answered
 * with a register-only reply_recv, the slow path the same exchange with a
 * small buffer attached (struct ipc_extra), which the kernel never takes
 * the fast path for. Prints cycles per round trip for each case and the
 * fast/slow ratio on one CPU, all from this one run.
 */
#include <spoor.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ROUNDS 20000
#define WARMUP	       200
#define PAYLOAD	       8
#define STOP_LABEL     0xdead

struct pair {
	int endpoint;
	int server_cpu;
	bool slow;
};

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void extra_for(struct ipc_extra *x, uint8_t *buf)
{
	*x = (struct ipc_extra){
	    .timeout_ns = TIMEOUT_FOREVER,
	    .send_buf = (uint64_t)(uintptr_t)buf,
	    .send_len = PAYLOAD,
	    .send_cap = IPC_NO_CAP,
	    .recv_buf = (uint64_t)(uintptr_t)buf,
	    .recv_max = PAYLOAD,
	};
}

static int server(void *arg)
{
	const struct pair *p = arg;
	uint8_t buf[PAYLOAD] = {0};
	struct ipc_extra x = {0};
	struct ipc_extra *xp = p->slow ? &x : NULL;
	struct ipc_regs m = {0};

	sys_thread_set_cpu(p->server_cpu);
	extra_for(&x, buf);
	long err = sys_ipc_recv(p->endpoint, &m, xp);
	while (!err && IPC_INFO_LABEL(m.info) != STOP_LABEL) {
		m.words[0]++;
		extra_for(&x, buf);
		err = sys_ipc_reply_recv(p->endpoint, &m, xp);
	}
	sys_ipc_reply(&m, NULL);
	return (int)err;
}

/* Cycles per round trip between this thread on cpu 0 and a server on server_cpu. */
static uint64_t measure(int server_cpu, bool slow, int rounds)
{
	struct pair p = {
	    .endpoint = (int)sys_endpoint_create(), .server_cpu = server_cpu, .slow = slow};
	uint8_t buf[PAYLOAD] = {0};
	struct ipc_extra x = {0};
	struct ipc_regs m = {0};
	uint64_t start = 0;

	if (p.endpoint < 0) {
		printf("ipcping: endpoint_create: %ld\n", (long)p.endpoint);
		exit(1);
	}
	sys_thread_set_cpu(0);
	int tid = thread_spawn(server, &p, 0);
	for (int i = 0; i < WARMUP + rounds; i++) {
		if (i == WARMUP) {
			start = rdtsc();
		}
		m.info = IPC_INFO(1, 1);
		m.words[0] = (uint64_t)i;
		extra_for(&x, buf);
		long err = sys_ipc_call(p.endpoint, &m, slow ? &x : NULL);
		if (err || m.words[0] != (uint64_t)i + 1) {
			printf("ipcping: call %d failed: %ld (word %llu)\n", i, err,
			       (unsigned long long)m.words[0]);
			exit(1);
		}
	}
	uint64_t cycles = (rdtsc() - start) / (uint64_t)rounds;
	m.info = IPC_INFO(STOP_LABEL, 0);
	sys_ipc_call(p.endpoint, &m, NULL);
	thread_join(tid, NULL);
	sys_cap_delete(p.endpoint);
	sys_thread_set_cpu(-1);
	return cycles;
}

int main(int argc, char **argv)
{
	struct sys_info info;
	int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;

	if (rounds <= 0) {
		printf("usage: ipcping [ROUNDS]\n");
		return 2;
	}
	sys_sys_info(&info);
	uint64_t fast = measure(0, false, rounds);
	uint64_t slow = measure(0, true, rounds);
	printf("ipcping: same cpu, fast path: %llu cycles per round trip\n",
	       (unsigned long long)fast);
	printf("ipcping: same cpu, slow path: %llu cycles per round trip\n",
	       (unsigned long long)slow);
	if (info.ncpus > 1) {
		printf("ipcping: cross cpu, register-only: %llu cycles per round trip\n",
		       (unsigned long long)measure(1, false, rounds));
		printf("ipcping: cross cpu, with buffer: %llu cycles per round trip\n",
		       (unsigned long long)measure(1, true, rounds));
	}
	printf("ipcping: on one cpu the fast path takes %llu.%02llu times fewer cycles\n",
	       (unsigned long long)(slow / fast), (unsigned long long)(slow * 100 / fast % 100));
	return 0;
}
