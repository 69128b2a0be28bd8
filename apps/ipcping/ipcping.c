/*
 * ipcping: IPC round trips, measured in TSC cycles. The client, this
 * program's main thread on CPU 0, talks to one server thread per case over
 * an endpoint of the case's own: a server on CPU 0 or on CPU 1, on the fast
 * path (a register-only call answered with a register-only reply_recv) or
 * the slow path (the same exchange with a small buffer attached in a
 * struct ipc_extra, which the kernel never takes the fast path for).
 * The same batches time a null system call (getpid, which only reads the
 * caller's pid), the floor of any round trip into the kernel and back.
 * Prints cycles per round trip for each case, the fast/slow ratio on one
 * CPU and the fast path in null system calls, all from this one run.
 * (make bench also runs it under QEMU's -icount, where the TSC counts
 * instructions: the same lines then give instructions.)
 *
 * Under emulation the host steals time from the guest in bursts, and
 * stolen time only ever adds cycles. So each case's rounds are split into
 * batches short enough for many to fall between bursts, the batches of all
 * cases run in turn (fast, slow, fast, slow, ...) so that a busy stretch
 * of the host hits them alike, and each case reports its best batch.
 */
#include <spoor.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ROUNDS 20000
#define BATCHES	       10
#define WARMUP	       200
#define PAYLOAD	       8
#define STOP_LABEL     0xdead
#define CASES	       4

struct pair {
	int endpoint;
	int server_cpu;
	bool slow;
	int tid;	   /* the server thread */
	uint64_t best;	   /* cycles per round trip of the best batch so far */
	uint64_t next_seq; /* the client's next sequence number */
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
		if (xp) {
			extra_for(&x, buf);
		}
		err = sys_ipc_reply_recv(p->endpoint, &m, xp);
	}
	sys_ipc_reply(&m, NULL);
	return (int)err;
}

/* Makes rounds round trips to p's server from this thread (on cpu 0); returns their cycles. */
static uint64_t run(struct pair *p, int rounds)
{
	uint8_t buf[PAYLOAD] = {0};
	struct ipc_extra x = {0};
	struct ipc_regs m = {0};
	uint64_t start = rdtsc();

	for (int i = 0; i < rounds; i++) {
		uint64_t seq = p->next_seq++;
		m.info = IPC_INFO(1, 1);
		m.words[0] = seq;
		if (p->slow) {
			extra_for(&x, buf);
		}
		long err = sys_ipc_call(p->endpoint, &m, p->slow ? &x : NULL);
		if (err || m.words[0] != seq + 1) {
			printf("ipcping: call %llu failed: %ld (word %llu)\n",
			       (unsigned long long)seq, err, (unsigned long long)m.words[0]);
			exit(1);
		}
	}
	return rdtsc() - start;
}

/* Makes rounds null system calls; returns their cycles. */
static uint64_t run_null(int rounds)
{
	uint64_t start = rdtsc();

	for (int i = 0; i < rounds; i++) {
		sys_getpid();
	}
	return rdtsc() - start;
}

static void start_pair(struct pair *p, int server_cpu, bool slow)
{
	*p = (struct pair){.endpoint = (int)sys_endpoint_create(),
			   .server_cpu = server_cpu,
			   .slow = slow,
			   .best = UINT64_MAX};
	if (p->endpoint < 0) {
		printf("ipcping: endpoint_create: %ld\n", (long)p->endpoint);
		exit(1);
	}
	p->tid = thread_spawn(server, p, 0);
	if (p->tid < 0) {
		printf("ipcping: thread_spawn: %d\n", p->tid);
		exit(1);
	}
	run(p, WARMUP);
}

static void stop_pair(struct pair *p)
{
	struct ipc_regs m = {.info = IPC_INFO(STOP_LABEL, 0)};

	sys_ipc_call(p->endpoint, &m, NULL);
	thread_join(p->tid, NULL);
	sys_cap_delete(p->endpoint);
}

int main(int argc, char **argv)
{
	struct sys_info info;
	struct pair pairs[CASES]; /* same cpu fast, slow; cross cpu fast, slow */
	uint64_t null_best = UINT64_MAX;
	int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;

	if (rounds < BATCHES) {
		printf("usage: ipcping [ROUNDS], at least %d\n", BATCHES);
		return 2;
	}
	sys_sys_info(&info);
	int cases = info.ncpus > 1 ? CASES : 2;
	sys_thread_set_cpu(0);
	for (int c = 0; c < cases; c++) {
		start_pair(&pairs[c], c < 2 ? 0 : 1, c % 2);
	}
	for (int b = 0; b < BATCHES; b++) {
		for (int c = 0; c < cases; c++) {
			uint64_t per_round = run(&pairs[c], rounds / BATCHES) / (rounds / BATCHES);
			pairs[c].best = per_round < pairs[c].best ? per_round : pairs[c].best;
		}
		uint64_t per_null = run_null(rounds / BATCHES) / (rounds / BATCHES);
		null_best = per_null < null_best ? per_null : null_best;
	}
	for (int c = 0; c < cases; c++) {
		stop_pair(&pairs[c]);
	}
	sys_thread_set_cpu(-1);
	uint64_t fast = pairs[0].best;
	uint64_t slow = pairs[1].best;
	printf("ipcping: same cpu, fast path: %llu cycles per round trip\n",
	       (unsigned long long)fast);
	printf("ipcping: same cpu, slow path: %llu cycles per round trip\n",
	       (unsigned long long)slow);
	if (cases > 2) {
		printf("ipcping: cross cpu, register-only: %llu cycles per round trip\n",
		       (unsigned long long)pairs[2].best);
		printf("ipcping: cross cpu, with buffer: %llu cycles per round trip\n",
		       (unsigned long long)pairs[3].best);
	}
	printf("ipcping: on one cpu the fast path takes %llu.%02llu times fewer cycles\n",
	       (unsigned long long)(slow / fast), (unsigned long long)(slow * 100 / fast % 100));
	printf("ipcping: null system call: %llu cycles per round trip\n",
	       (unsigned long long)null_best);
	if (null_best) {
		printf("ipcping: the fast path round trip costs %llu.%02llu null system calls\n",
		       (unsigned long long)(fast / null_best),
		       (unsigned long long)(fast * 100 / null_best % 100));
	}
	return 0;
}
