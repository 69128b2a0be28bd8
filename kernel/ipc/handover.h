/*
 * handover: the steps under ipc_lock that the operations (ipc.c) share
 * with a signal's delivery (signal.c) and a thread's exit (thread.c): a
 * signal put in a receiver's message, a reply link broken. Private to
 * kernel/ipc.
 */
#ifndef SPOOR_IPC_HANDOVER_H
#define SPOOR_IPC_HANDOVER_H

#include <stdint.h>

#include "abi/errno.h"
#include "ipc/endpoint.h"
#include "sched/thread.h"

/* A caller still waiting for a reply we will never send gets -EPIPE. ipc_lock held. */
static inline void drop_reply(struct thread *server)
{
	struct thread *caller = server->ipc.reply_to;

	if (caller) {
		server->ipc.reply_to = NULL;
		caller->ipc.replier = NULL;
		finish(caller, -EPIPE);
	}
}

/*
 * Puts a signal of bits in t's message, or straight in its registers if
 * it waits on the fast path (abi/ipc.h, SIGNALS): the kernel's message,
 * which owes no reply. ipc_lock held.
 */
static inline void put_signal(struct thread *t, uint64_t bits)
{
	struct ipc_msg *m = &t->ipc.msg;

	m->info = IPC_INFO(IPC_SIGNAL_LABEL, 1);
	m->words[0] = bits;
	for (unsigned i = 1; i < IPC_WORDS; i++) {
		m->words[i] = 0;
	}
	m->badge = 0;
	m->sender_pid = 0;
	m->len = 0;
	m->has_cap = false; /* a receiver's own staged capability went at its reply */
	if (t->ipc.in_regs) {
		ipc_store_regs(t->frame, m);
	}
}

#endif
