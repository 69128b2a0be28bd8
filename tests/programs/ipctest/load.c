/*
 * load: many calls from many clients, with and without clients dying.
 *
 * `stress [CALLS]`: STRESS_CLIENTS client processes, each with its own
 * badge, make CALLS (STRESS_CALLS by default) register-only calls apiece
 * (the fast path on both sides) to one server thread. Every call carries
 * the client's sequence number; the server checks that each client's
 * numbers arrive in order with none missing or repeated, and each client
 * checks that every reply brings back its own number and badge. A lost
 * wake-up or reply stops the calls; a slow host only slows them: so the
 * run fails when no call has been served for STRESS_STALL_NS, however
 * long the whole takes.
 *
 * Both say how far they got every PROGRESS_NS or so while calls are
 * served ("ipctest stress: N calls served so far"), so that the shell
 * test can wait as long as the calls go on rather than for a fixed time:
 * under a loaded host a run took more than three minutes (issue 31 item
 * 17), while one that stops fails on its own within seconds.
 *
 * `churn [CALLS]`: rounds of CHURN_CLIENTS client processes call one
 * server (every 8th call with a buffer, so both paths are used) until
 * CALLS calls (100000 by default) have been served. In every round one
 * client is killed by the server while it holds the client's reply and
 * one is killed while it is busy calling; the others finish. The shell
 * test compares free memory before and after a run: every process,
 * thread, endpoint and message buffer of the churn must be given back.
 *
 * Placement: the server runs on CPU 0 and the clients alternate between
 * CPU 0 (where calls can switch straight to the server) and CPU 1 (where
 * every call and reply crosses CPUs). Left to the scheduler, the threads
 * spread over idle CPUs, and under TCG waking an idle virtual CPU costs
 * milliseconds when the host has fewer cores than the guest has CPUs:
 * these runs would take minutes instead of seconds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ipctest.h"

#define STRESS_CLIENTS	  8
#define STRESS_CALLS	  10000
#define STRESS_STALL_NS	  (60 * S)
#define STRESS_POLL_NS	  (1 * S)
#define PROGRESS_NS	  (10 * S)
#define CHURN_CLIENTS	  4
#define CHURN_CALLS	  2500 /* per client, unless killed */
#define CHURN_DEFAULT	  100000
#define CHURN_BUFFER_EACH 8
#define CHURN_RECV_NS	  (10 * S)
#define CHURN_CLOCK_EVERY 256 /* calls between two looks at the clock for PROGRESS_NS */
#define CHURN_SEED	  0x9e3779b97f4a7c15ull
#define XORSHIFT_MUL	  0x2545f4914f6cdd1dull
#define HOLD_VICTIM	  0   /* the client killed while we hold its reply */
#define CALL_VICTIM	  1   /* the client killed while it calls */
#define KILL_BEFORE_END	  100 /* victims die at least this many calls before their last */
#define SERVER_CPU	  0

/* The CPU for client i: 0 and 1 in turn, or 0 on a machine with one CPU. */
static int client_cpu(int i)
{
	struct sys_info info;

	sys_sys_info(&info);
	return (i % 2) % (int)info.ncpus;
}

struct stress_server {
	int endpoint;
	uint64_t calls;		       /* per client */
	uint64_t next[STRESS_CLIENTS]; /* the sequence number each client sends next */
	uint64_t served;
	uint64_t report_at; /* [main thread] when it next says how far the calls got */
};

static int stress_serve(void *arg)
{
	struct stress_server *s = arg;
	const uint64_t total = STRESS_CLIENTS * s->calls;
	struct ipc_regs m = {0};
	long err = sys_thread_set_cpu(SERVER_CPU);

	if (!err) {
		err = sys_ipc_recv(s->endpoint, &m, NULL);
	}
	while (!err) {
		uint64_t client = m.badge - 1;
		if (check_true("a call from a known client", client < STRESS_CLIENTS, "badge %llu",
			       (unsigned long long)m.badge)) {
			check_true(
			    "calls arrive once each, in order", m.words[0] == s->next[client],
			    "client %llu sent %llu, expected %llu", (unsigned long long)client,
			    (unsigned long long)m.words[0], (unsigned long long)s->next[client]);
			s->next[client] = m.words[0] + 1;
		}
		m.words[1] = m.badge;
		m.info = IPC_INFO(LABEL_SEQ + 1, 2);
		/* relaxed: the main thread only watches it move (stress_wait()) */
		uint64_t served = __atomic_add_fetch(&s->served, 1, __ATOMIC_RELAXED);
		if (served == total) {
			return (int)-sys_ipc_reply(&m, NULL);
		}
		err = sys_ipc_reply_recv(s->endpoint, &m, NULL);
	}
	return (int)-err;
}

/*
 * Waits for client process c to end as long as the server goes on serving
 * calls: 0 and its status, or what sys_wait() said once no call has been
 * served for STRESS_STALL_NS.
 */
static long stress_wait(struct stress_server *s, int c, int64_t *status)
{
	uint64_t seen = __atomic_load_n(&s->served, __ATOMIC_RELAXED);
	uint64_t since = now_ns();

	for (;;) {
		long err = reap(c, status, STRESS_POLL_NS);
		if (err != -ETIMEDOUT) {
			return err;
		}
		uint64_t served = __atomic_load_n(&s->served, __ATOMIC_RELAXED);
		if (served != seen) {
			seen = served;
			since = now_ns();
			if (since >= s->report_at) {
				printf("ipctest stress: %llu calls served so far\n",
				       (unsigned long long)served);
				s->report_at = since + PROGRESS_NS;
			}
		} else if (now_ns() - since >= STRESS_STALL_NS) {
			return err;
		}
	}
}

int test_stress(int argc, char **argv)
{
	struct stress_server s = {0};
	int clients[STRESS_CLIENTS];
	char arg[32], what[64];

	s.calls = argc > 0 ? strtoul(argv[0], NULL, 10) : STRESS_CALLS;
	int ep = new_endpoint();
	s.endpoint = (int)ep;
	for (int i = 0; i < STRESS_CLIENTS; i++) {
		snprintf(arg, sizeof(arg), "%llu:0:%d", (unsigned long long)s.calls, client_cpu(i));
		long minted = sys_endpoint_mint((int)ep, (uint64_t)i + 1, CALL_RIGHTS);
		if (minted < 0) {
			fatal("endpoint_mint", minted);
		}
		clients[i] = spawn_role("client-seq", arg, (int)minted, CALL_RIGHTS, -1);
		sys_cap_delete((int)minted);
	}
	int tid = thread_spawn(stress_serve, &s, 0);
	if (tid < 0) {
		fatal("thread_spawn", tid);
	}
	for (int i = 0; i < STRESS_CLIENTS; i++) {
		int64_t status = -1;
		long err = stress_wait(&s, clients[i], &status);
		snprintf(what, sizeof(what), "client %d finishes its %llu calls", i,
			 (unsigned long long)s.calls);
		if (!check_true(what, !err, "%ld (%llu of its calls served)", err,
				(unsigned long long)s.next[i])) {
			finish();
		}
		snprintf(what, sizeof(what), "client %d's replies (exit status)", i);
		check(what, (long)status, 0);
	}
	int64_t status = -1;
	check("join the server thread", thread_join(tid, &status), 0);
	check("the server thread's status", (long)status, 0);
	printf("ipctest stress: %d clients made %llu calls, every reply matched its call\n",
	       STRESS_CLIENTS, (unsigned long long)s.served);
	finish();
}

/* One churn client: its process, what it has been served, and its fate. */
struct churn_client {
	int process; /* 0 once reaped */
	uint64_t badge;
	uint64_t served;
	uint64_t kill_at; /* 0: let it finish */
	bool hold_kill;	  /* killed while we hold its reply, or else while it calls */
};

struct churn {
	int endpoint;
	uint64_t next_badge;
	uint64_t served;
	uint64_t killed;
	uint64_t report_at; /* when it next says how far the calls got */
	uint64_t rng;
	struct churn_client clients[CHURN_CLIENTS];
};

static uint64_t churn_random(struct churn *c, uint64_t below)
{
	/* xorshift64*: reproducible from the fixed seed, so a failure can be rerun. */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (c->rng * XORSHIFT_MUL >> 32) % below;
}

static void churn_start_round(struct churn *c)
{
	char arg[32];

	for (int i = 0; i < CHURN_CLIENTS; i++) {
		struct churn_client *cl = &c->clients[i];
		snprintf(arg, sizeof(arg), "%d:%d:%d", CHURN_CALLS, CHURN_BUFFER_EACH,
			 client_cpu(i));
		long minted = sys_endpoint_mint(c->endpoint, ++c->next_badge, CALL_RIGHTS);
		if (minted < 0) {
			fatal("endpoint_mint", minted);
		}
		*cl = (struct churn_client){
		    .badge = c->next_badge,
		    .kill_at = i == HOLD_VICTIM || i == CALL_VICTIM
				   ? 1 + churn_random(c, CHURN_CALLS - KILL_BEFORE_END)
				   : 0,
		    .hold_kill = i == HOLD_VICTIM,
		};
		cl->process = spawn_role("client-seq", arg, (int)minted, CALL_RIGHTS, -1);
		sys_cap_delete((int)minted);
	}
}

static void churn_kill(struct churn *c, struct churn_client *cl)
{
	int64_t status = 0;
	long err = kill_and_reap(cl->process, &status);

	if (!check_true("a killed client ends", !err,
			"kill_and_reap of client %llu after %llu calls: %ld",
			(unsigned long long)cl->badge, (unsigned long long)cl->served, err)) {
		finish();
	}
	check("a killed client's status", (long)status, EXIT_KILLED);
	cl->process = 0;
	c->killed++;
}

/* Notes one call from badge; kills the clients whose time has come. */
static void churn_served(struct churn *c, const struct ipc_regs *m)
{
	struct churn_client *from = NULL;

	for (int i = 0; i < CHURN_CLIENTS; i++) {
		if (c->clients[i].badge == m->badge && c->clients[i].process) {
			from = &c->clients[i];
		}
	}
	if (!check_true("a call from a live client of this round", from, "badge %llu",
			(unsigned long long)m->badge)) {
		return;
	}
	check_true("calls arrive once each, in order", m->words[0] == from->served,
		   "client %llu sent %llu, expected %llu", (unsigned long long)from->badge,
		   (unsigned long long)m->words[0], (unsigned long long)from->served);
	from->served++;
	c->served++;
	if (!(c->served % CHURN_CLOCK_EVERY) && now_ns() >= c->report_at) {
		printf("ipctest churn: %llu calls served so far\n", (unsigned long long)c->served);
		c->report_at = now_ns() + PROGRESS_NS;
	}
	for (int i = 0; i < CHURN_CLIENTS; i++) {
		struct churn_client *cl = &c->clients[i];
		bool holding = cl == from;
		if (cl->process && cl->kill_at && cl->served >= cl->kill_at &&
		    (holding || !cl->hold_kill)) {
			churn_kill(c, cl);
		}
	}
}

static bool churn_round_over(const struct churn *c)
{
	for (int i = 0; i < CHURN_CLIENTS; i++) {
		const struct churn_client *cl = &c->clients[i];
		if (cl->process && cl->served < CHURN_CALLS) {
			return false;
		}
	}
	return true;
}

/* Serves one round; the last reply goes out before the clients that finished are reaped. */
static void churn_serve_round(struct churn *c)
{
	static uint64_t buf;
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(CHURN_RECV_NS);

	x.recv_buf = (uint64_t)(uintptr_t)&buf;
	x.recv_max = sizeof(buf);
	long err = sys_ipc_recv(c->endpoint, &m, &x);
	for (;;) {
		if (!check("the server's receive", err, 0)) {
			finish();
		}
		churn_served(c, &m);
		uint32_t len = x.recv_len;
		m.words[1] = m.badge;
		m.info = IPC_INFO(LABEL_SEQ + 1, 2);
		x = extra_with(CHURN_RECV_NS);
		x.send_buf = x.recv_buf = (uint64_t)(uintptr_t)&buf;
		x.send_len = len;
		x.recv_max = sizeof(buf);
		if (churn_round_over(c)) {
			check("the round's last reply", sys_ipc_reply(&m, &x), 0);
			break;
		}
		err = sys_ipc_reply_recv(c->endpoint, &m, &x);
	}
	for (int i = 0; i < CHURN_CLIENTS; i++) {
		struct churn_client *cl = &c->clients[i];
		int64_t status = -1;
		if (!cl->process) {
			continue;
		}
		if (check("a client that made all its calls ends",
			  reap(cl->process, &status, PROMPT_NS), 0)) {
			check("its exit status", (long)status, 0);
		}
		cl->process = 0;
	}
}

int test_churn(int argc, char **argv)
{
	static struct churn c = {.rng = CHURN_SEED};
	uint64_t total = argc > 0 ? strtoul(argv[0], NULL, 10) : CHURN_DEFAULT;
	uint64_t rounds = 0;

	int ep = new_endpoint();
	c.endpoint = (int)ep;
	check("pin the server", sys_thread_set_cpu(SERVER_CPU), 0);
	while (c.served < total && !failures()) {
		churn_start_round(&c);
		churn_serve_round(&c);
		rounds++;
	}
	sys_cap_delete((int)ep);
	printf("ipctest churn: %llu calls served in %llu rounds, %llu clients killed mid-way\n",
	       (unsigned long long)c.served, (unsigned long long)rounds,
	       (unsigned long long)c.killed);
	finish();
}
