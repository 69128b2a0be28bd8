/*
 * ipc: synchronous endpoints (the contract is abi/ipc.h).
 *
 * All IPC state — endpoint queues and the reply links between a caller and
 * the server holding its reply — is guarded by one spinlock, ipc_lock
 * (endpoint.h), taken after a cspace's lock (endpoint references are counted
 * under both) and before any scheduler lock. A message is staged in the
 * sending thread's struct ipc_msg and copied into the receiver's, or, for
 * a receiver waiting on the fast path, straight into its saved registers;
 * each thread moves user memory in and out only in its own context.
 *
 * Lock legend for the fields below: [ipc] ipc_lock, [o] the thread itself.
 */
#ifndef SPOOR_IPC_IPC_H
#define SPOOR_IPC_IPC_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/ipc.h"
#include "arch/x86_64/idt.h"
#include "cap/cspace.h"
#include "lib/list.h"

struct thread;
struct endpoint;

struct ipc_msg {
	uint64_t info;
	uint64_t words[IPC_WORDS];
	uint64_t badge;	     /* of the capability the caller used */
	uint32_t sender_pid; /* the sending process, set as the message moves */
	uint32_t len;	     /* bytes in buf */
	uint8_t *buf;	     /* [o] IPC_BUF_MAX bytes, allocated on first use */
	bool has_cap;
	struct cap cap; /* a counted reference while in transit */
};

#define IPC_IDLE	0
#define IPC_SENDING	1 /* queued on an endpoint with a message */
#define IPC_RECEIVING	2 /* queued on an endpoint, waiting for one */
#define IPC_AWAIT_REPLY 3 /* message taken; a server holds our reply */
#define IPC_DONE	4 /* the partner finished our operation: see result */

struct ipc_state {
	uint32_t phase;		 /* [ipc] IPC_* */
	int result;		 /* [ipc] outcome, once IPC_DONE */
	uint32_t recv_max;	 /* [ipc] room for a buffer, while waiting to receive */
	struct endpoint *ep;	 /* [ipc] endpoint queued on */
	struct list node;	 /* [ipc] in ep's send or receive queue */
	struct thread *reply_to; /* [ipc] server side: the caller owed a reply */
	struct thread *replier;	 /* [ipc] client side: the server holding our reply */
	bool in_regs;		 /* [ipc] blocked on the fast path: messages go to its registers */
	uint32_t held_rights;	 /* [ipc] of held */
	struct endpoint *held;	 /* [ipc] the reference its operation counted, while in_regs */
	struct ipc_msg msg;	 /* [ipc] the message to send, then the one received */
};

/*
 * The message registers of abi/ipc.h. ipc_load_regs() takes the info and
 * the words it counts from f, the others zero, and no buffer; it returns
 * false, having done nothing, for an info with reserved bits set or too
 * many words. ipc_store_regs() puts info, badge and all eight words in f.
 */
bool ipc_load_regs(struct ipc_msg *m, const struct trap_frame *f);
void ipc_store_regs(struct trap_frame *f, const struct ipc_msg *m);

void ipc_thread_init(struct thread *t);
/* Breaks t's reply links and drops what it holds; at thread exit. */
void ipc_thread_exit(struct thread *t);
/* Frees t's message buffer. */
void ipc_thread_free(struct thread *t);

/*
 * The operations, on the current thread. The message to send is in
 * thread_current()->ipc.msg (its buffer and capability already taken in
 * from user space), and the message received replaces it. recv_max is the
 * room for a received buffer; deadline_ns 0 means none. Results: 0 or -E*
 * as abi/ipc.h says. They may block.
 */
int ipc_call(struct endpoint *ep, uint64_t badge, uint32_t recv_max, uint64_t deadline_ns);
int ipc_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns);
int ipc_reply(void);
int ipc_reply_recv(struct endpoint *ep, uint32_t recv_max, uint64_t deadline_ns);

/*
 * The fast path of a register-only call or reply_recv through the endpoint
 * capability in slot of cs, with the message in the caller's registers f:
 * no buffer, capability, room to receive either, or timeout goes with it.
 * It applies only when the partner already waits (a receiver for call, a
 * caller owed our reply for reply_recv) and may run on this CPU, and, for
 * reply_recv, when no other caller is queued nor a signal pending
 * (ipc_signal()); otherwise it returns NULL
 * having done nothing, bad slots included: the generic path takes over.
 * Called with interrupts off, from a system call entry that prepared the
 * current thread's stack to resume at ipc_fast_resume (syscall_entry.S).
 *
 * When it applies, the current thread blocks, its operation handed over
 * or queued, to resume in user mode: a partner on the fast path finishes
 * its operation and returns straight to user mode from its trap frame;
 * anyone else wakes it, and it resumes at ipc_fast_resume, which collects
 * the result with ipc_fast_collect(). The partner gets the CPU: if it
 * waits on the fast path too, its operation is done (result 0), the CPU
 * is made its own (switch_prepare()), and it is returned, for the caller
 * to leave the current thread's stack for the partner's trap frame and
 * clear the current thread's on_cpu. Otherwise it is resumed where it
 * blocked, and the call does not return.
 */
struct thread *ipc_fast_call(struct cspace *cs, uint32_t slot, struct trap_frame *f);
struct thread *ipc_fast_reply_recv(struct cspace *cs, uint32_t slot, struct trap_frame *f);

/*
 * The result of the current thread's operation on the fast path once it
 * runs again after anyone but a fast-path partner woke it, and the thread
 * idle. A message received is in its registers already, but for a
 * capability a generic sender may have sent, left in ipc.msg for the
 * caller to drop. Interrupts off.
 */
int ipc_fast_collect(struct thread *me);

/* A page for the thread's message buffer, if it has none. 0 or -ENOMEM. */
int ipc_buffer_ensure(struct thread *t);

struct mem_account;

/*
 * Endpoint objects; references are taken per capability (cspace.c). One is
 * made for a's tree (uncharged: heap.h kzalloc_for). 0 or -ENOMEM.
 */
int endpoint_create(struct mem_account *a, struct endpoint **out);
void endpoint_get(struct endpoint *ep, uint32_t rights);
void endpoint_put(struct endpoint *ep, uint32_t rights);

/*
 * Signals ep with bits (abi/ipc.h, SIGNALS): the oldest receiver waiting
 * on it gets the kernel's message at once and is woken; with none, the
 * bits stay pending on ep for the next receive, joined by any that come
 * meanwhile, so a signal is never lost. Any context, interrupt handlers
 * included (it takes ipc_lock with interrupts off); the caller holds a
 * reference to ep.
 */
void ipc_signal(struct endpoint *ep, uint64_t bits);

#endif
