/*
 * fastpath: the register-only exchanges the kernel's IPC fast path
 * carries, at its edges. A register-only server thread answers through it:
 * the badge of the capability called arrives, so do the words the info
 * counts, all eight of them included, while the registers past the count
 * read 0 on both sides though they held other values. A register-only
 * call made while no receiver waits takes the slow path and the server's
 * fast-path reply still reaches it; a register-only call to a server that
 * receives with a struct ipc_extra reports the caller's pid and badge.
 *
 * `fastpath [BADGE [BASE]]`: the badged capability carries BADGE and word
 * i of a call is BASE + i. It prints the reply to its call of all eight
 * words and what the ipc_extra server saw, so that whoever chose them can
 * check the answers without trusting these checks.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ipctest.h"

#define FAST_BADGE 0xfa57 /* without BADGE */
#define WORD_BASE  0x1000 /* without BASE */
#define FAST_ECHO  0x20	  /* reply: badge, words past the count not 0, then words 0..5 */
#define FAST_SHORT 0x22	  /* reply of one word: the badge */
#define GARBAGE	   0x5a5a5a5a5a5a5a5aull

/* The reply serve_fast() gives to m, received on the fast path. */
static struct ipc_regs fast_reply(const struct ipc_regs *m)
{
	uint32_t label = IPC_INFO_LABEL(m->info);
	struct ipc_regs r = {.info = IPC_INFO(label + 1, IPC_WORDS)};
	uint64_t stale = 0;

	for (unsigned i = IPC_INFO_WORDS(m->info); i < IPC_WORDS; i++) {
		stale += m->words[i] != 0;
	}
	/* Registers past the reply's count hold garbage: the caller must read 0 there. */
	for (unsigned i = 0; i < IPC_WORDS; i++) {
		r.words[i] = GARBAGE;
	}
	r.words[0] = m->badge;
	if (label == FAST_SHORT) {
		r.info = IPC_INFO(label + 1, 1);
		return r;
	}
	r.words[1] = stale;
	for (unsigned i = 0; i < IPC_WORDS - 2; i++) {
		r.words[2 + i] = m->words[i];
	}
	return r;
}

/* Serves the endpoint arg with registers only until LABEL_STOP. */
static int serve_fast(void *arg)
{
	int ep = (int)(intptr_t)arg;
	struct ipc_regs m = {0};
	long err = sys_ipc_recv(ep, &m, NULL);

	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		m = fast_reply(&m);
		err = sys_ipc_reply_recv(ep, &m, NULL);
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	sys_ipc_reply(&m, NULL);
	return (int)-err;
}

/* Serves one call with an ipc_extra, replying with registers: the sender's pid, the badge. */
static int serve_pid(void *arg)
{
	int ep = (int)(intptr_t)arg;
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(PROMPT_NS);
	long err = sys_ipc_recv(ep, &m, &x);

	if (err) {
		return (int)-err;
	}
	m = (struct ipc_regs){.info = IPC_INFO(FAST_ECHO + 1, 2), .words = {x.sender_pid, m.badge}};
	return (int)-sys_ipc_reply(&m, NULL);
}

/* What this run sends: the badged capability's badge, and word i is base + i. */
static uint64_t fast_badge, base;

/* One register-only call of n words, the registers past them garbage; returns its result. */
static long call_words(int slot, uint32_t label, uint32_t n, struct ipc_regs *m)
{
	*m = (struct ipc_regs){.info = IPC_INFO(label, n)};
	for (unsigned i = 0; i < IPC_WORDS; i++) {
		m->words[i] = i < n ? base + i : GARBAGE;
	}
	return sys_ipc_call(slot, m, NULL);
}

/*
 * A call of n words through slot to serve_fast(), its reply checked against
 * badge; with report, the reply's words printed too.
 */
static void check_echo(int slot, uint32_t n, uint64_t badge, bool report)
{
	struct ipc_regs m;
	char what[80];

	snprintf(what, sizeof(what), "register-only call of %u words", n);
	if (!check(what, call_words(slot, FAST_ECHO, n, &m), 0)) {
		return;
	}
	snprintf(what, sizeof(what), "the badge the server saw (%u words)", n);
	check(what, (long)m.words[0], (long)badge);
	snprintf(what, sizeof(what), "registers past %u words read 0 at the server", n);
	check(what, (long)m.words[1], 0);
	for (unsigned i = 0; i < n && i < IPC_WORDS - 2; i++) {
		snprintf(what, sizeof(what), "word %u of %u arrived", i, n);
		check(what, (long)m.words[2 + i], (long)(base + i));
	}
	if (report) {
		printf("ipctest fastpath: reply to %u words", n);
		for (unsigned i = 0; i < IPC_WORDS; i++) {
			printf(" 0x%llx", (unsigned long long)m.words[i]);
		}
		printf("\n");
	}
}

/* A register-only call made while nobody receives; the reply's word 0 in *word. */
struct early_call {
	int slot;
	long result;
	uint64_t word;
};

static int call_early(void *arg)
{
	struct early_call *e = arg;
	struct ipc_regs m;

	e->result = call_words(e->slot, FAST_ECHO, 1, &m);
	e->word = m.words[0];
	return 0;
}

static void check_pid_reported(long ep, int badged)
{
	int tid = thread_spawn(serve_pid, (void *)(intptr_t)ep, 0);
	struct ipc_regs m = {.info = IPC_INFO(FAST_ECHO, 0)};

	if (tid < 0) {
		fatal("thread_spawn", tid);
	}
	check_true("the ipc_extra server waits",
		   wait_blocked((uint32_t)sys_getpid(), (uint32_t)tid, PROMPT_NS),
		   "it did not block");
	if (check("register-only call to a server with an ipc_extra",
		  sys_ipc_call(badged, &m, NULL), 0)) {
		check("the sender pid it reports", (long)m.words[0], sys_getpid());
		check("the badge it reports", (long)m.words[1], (long)fast_badge);
		printf("ipctest fastpath: the ipc_extra server saw pid %llu, badge 0x%llx\n",
		       (unsigned long long)m.words[0], (unsigned long long)m.words[1]);
	}
	int64_t status = -1;
	check("join the ipc_extra server", thread_join(tid, &status), 0);
	check("its status", (long)status, 0);
}

int test_fastpath(int argc, char **argv)
{
	fast_badge = argc > 0 ? strtoull(argv[0], NULL, 0) : FAST_BADGE;
	base = argc > 1 ? strtoull(argv[1], NULL, 0) : WORD_BASE;
	long ep = sys_endpoint_create();
	long badged = ep < 0 ? ep : sys_endpoint_mint((int)ep, fast_badge, CALL_RIGHTS);
	uint32_t me = (uint32_t)sys_getpid();

	if (badged < 0) {
		fatal("endpoint_create or endpoint_mint", badged);
	}
	/* No receiver yet: this call queues (the slow path). */
	struct early_call early = {.slot = (int)badged};
	int caller = thread_spawn(call_early, &early, 0);
	if (caller < 0) {
		fatal("thread_spawn", caller);
	}
	check_true("an early caller waits", wait_blocked(me, (uint32_t)caller, PROMPT_NS),
		   "it did not block");
	int server = thread_spawn(serve_fast, (void *)(intptr_t)ep, 0);
	if (server < 0) {
		fatal("thread_spawn", server);
	}
	check("join the early caller", thread_join(caller, NULL), 0);
	check("the early call, queued before the server received", early.result, 0);
	check("its reply carries the badge", (long)early.word, (long)fast_badge);

	/* The server now waits in reply_recv with registers only: the fast path. */
	check_echo((int)badged, 2, fast_badge, false);
	check_echo((int)badged, IPC_WORDS, fast_badge, true);
	check_echo((int)badged, 0, fast_badge, false);
	check_echo((int)ep, 3, 0, false);
	struct ipc_regs m;
	if (check("a call answered with one word", call_words((int)badged, FAST_SHORT, 4, &m), 0)) {
		check("the short reply's word count", IPC_INFO_WORDS(m.info), 1);
		check("the short reply's word 0", (long)m.words[0], (long)fast_badge);
		for (unsigned i = 1; i < IPC_WORDS; i++) {
			char what[64];
			snprintf(what, sizeof(what), "register of word %u past the reply reads 0",
				 i);
			check(what, (long)m.words[i], 0);
		}
	}
	m = (struct ipc_regs){.info = IPC_INFO(LABEL_STOP, 0)};
	check("stopping the server", sys_ipc_call((int)ep, &m, NULL), 0);
	int64_t status = -1;
	check("join the server", thread_join(server, &status), 0);
	check("the server's status", (long)status, 0);

	check_pid_reported(ep, (int)badged);
	sys_cap_delete((int)badged);
	sys_cap_delete((int)ep);
	finish();
}
