/*
 * echo_thread: the in-process echo server of echo_thread.h. One receive
 * → handle → reply_recv loop; the control labels change how the next
 * receive or this reply is done, so the tests can make the server's side
 * of a transfer fail on purpose and then see that it goes on serving.
 */
#include <string.h>

#include "echo_thread.h"
#include "ipctest.h"

struct server_state {
	int endpoint;
	uint32_t recv_max;  /* room for the next receive */
	uint64_t recv_addr; /* where the next receive goes; 0: the usual buffer */
	struct echo_report report;
};

static uint8_t in[IPC_BUF_MAX];
static uint8_t out[IPC_BUF_MAX];

/* The next receive's ipc_extra, then back to the defaults. */
static struct ipc_extra next_receive(struct server_state *s)
{
	struct ipc_extra x = extra_with(TIMEOUT_FOREVER);

	x.recv_buf = s->recv_addr ? s->recv_addr : (uint64_t)(uintptr_t)in;
	x.recv_max = s->recv_max;
	s->recv_addr = 0;
	s->recv_max = IPC_BUF_MAX;
	return x;
}

/* Builds the reply to m (received with x) in m and r; returns false to stop after it. */
static bool handle(struct server_state *s, struct ipc_regs *m, const struct ipc_extra *x,
		   struct ipc_extra *r)
{
	uint32_t label = IPC_INFO_LABEL(m->info);

	*r = extra_with(0);
	r->send_buf = (uint64_t)(uintptr_t)out;
	switch (label) {
	case LABEL_STOP:
		m->info = IPC_INFO(label, 0);
		return false;
	case ECHO_REPLY_SIZE:
		r->send_len = (uint32_t)m->words[0];
		memset(out, 'r', sizeof(out));
		break;
	case ECHO_SMALL_RECV:
		s->recv_max = (uint32_t)m->words[0];
		break;
	case ECHO_BAD_RECV:
		s->recv_addr = m->words[0];
		break;
	case ECHO_REPORT:
		m->words[0] = (uint64_t)s->report.recv_err;
		m->words[1] = (uint64_t)s->report.bad_reply_err;
		m->words[2] = (uint64_t)s->report.bad_reply_recv_err;
		break;
	default:
		for (uint32_t i = 0; i < x->recv_len; i++) {
			out[i] = in[x->recv_len - 1 - i];
		}
		r->send_len = x->recv_len;
		m->words[7] = m->badge;
		break;
	}
	m->info = IPC_INFO(label + 1, IPC_WORDS);
	return true;
}

/* A reply from an unreadable address must fail and leave the reply owed. */
static void try_bad_reply(struct server_state *s, const struct ipc_regs *m, uint64_t addr)
{
	struct ipc_regs copy = *m;
	struct ipc_extra bad = extra_with(0);

	bad.send_buf = addr;
	bad.send_len = 16;
	s->report.bad_reply_err = sys_ipc_reply(&copy, &bad);
	copy = *m;
	bad = extra_with(0);
	bad.send_buf = addr;
	bad.send_len = 16;
	s->report.bad_reply_recv_err = sys_ipc_reply_recv(s->endpoint, &copy, &bad);
}

static int serve(void *arg)
{
	struct server_state s = {.endpoint = *(int *)arg, .recv_max = IPC_BUF_MAX};
	struct ipc_regs m = {0};
	struct ipc_extra x = next_receive(&s);
	long err = sys_ipc_recv(s.endpoint, &m, &x);

	for (;;) {
		struct ipc_extra r;
		if (err == -EFAULT) {
			/* The message was taken but could not be stored: say so to the caller. */
			s.report.recv_err = err;
			m = (struct ipc_regs){.info = IPC_INFO(ECHO_RECV_FAILED, 1)};
			m.words[0] = (uint64_t)err;
			r = extra_with(0);
		} else if (err) {
			return (int)-err;
		} else {
			uint64_t bad = IPC_INFO_LABEL(m.info) == ECHO_BAD_REPLY ? m.words[0] : 0;
			if (!handle(&s, &m, &x, &r)) {
				return (int)-sys_ipc_reply(&m, &r);
			}
			if (bad) {
				try_bad_reply(&s, &m, bad);
			}
		}
		x = next_receive(&s);
		x.send_buf = r.send_buf;
		x.send_len = r.send_len;
		err = sys_ipc_reply_recv(s.endpoint, &m, &x);
	}
}

int echo_thread_start(struct echo_thread *e, int endpoint)
{
	e->endpoint = endpoint;
	e->tid = thread_spawn(serve, &e->endpoint, 0);
	return e->tid < 0 ? e->tid : 0;
}

long echo_thread_stop(struct echo_thread *e)
{
	struct ipc_regs m = {.info = IPC_INFO(LABEL_STOP, 0)};
	struct ipc_extra x = extra_with(PROMPT_NS);
	int64_t status = 0;
	long err = sys_ipc_call(e->endpoint, &m, &x);

	if (!err) {
		err = thread_join(e->tid, &status);
	}
	return err ? err : status;
}
