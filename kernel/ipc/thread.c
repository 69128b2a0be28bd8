/*
 * thread: a thread's IPC state over its life (see ipc.h): its queue node
 * at creation, its message buffer's page on first use, its links broken
 * and what it held dropped at exit, the buffer freed with the thread.
 */
#include "ipc/ipc.h"

#include "ipc/endpoint.h"
#include "ipc/handover.h"
#include "lib/spinlock.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "proc/process.h"

void ipc_thread_init(struct thread *t)
{
	list_init(&t->ipc.node);
}

int ipc_buffer_ensure(struct thread *t)
{
	uint64_t pa;

	if (t->ipc.msg.buf) {
		return 0;
	}
	if (pmm_alloc_charged(t->proc ? t->proc->acct : NULL, 1, &pa)) {
		return -ENOMEM;
	}
	t->ipc.msg.buf = phys_to_virt(pa);
	return 0;
}

void ipc_thread_exit(struct thread *t)
{
	struct cap dropped = {0};
	uint64_t flags = spin_lock_irqsave(&ipc_lock);

	drop_reply(t);
	if (t->ipc.replier) {
		t->ipc.replier->ipc.reply_to = NULL;
		t->ipc.replier = NULL;
	}
	if (t->ipc.phase == IPC_SENDING || t->ipc.phase == IPC_RECEIVING) {
		list_remove(&t->ipc.node);
		t->ipc.ep = NULL;
	}
	t->ipc.phase = IPC_IDLE;
	if (t->ipc.msg.has_cap) {
		dropped = t->ipc.msg.cap;
		t->ipc.msg.has_cap = false;
	}
	spin_unlock_irqrestore(&ipc_lock, flags);
	if (dropped.kind != CAP_KIND_NONE) {
		cap_put(&dropped);
	}
}

void ipc_thread_free(struct thread *t)
{
	if (t->ipc.msg.buf) {
		pmm_free_frames(virt_to_phys(t->ipc.msg.buf), 1);
	}
}
