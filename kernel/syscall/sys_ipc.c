/*
 * sys_ipc: endpoint creation and minting, the four IPC operations, and
 * thread pinning (which the IPC benchmark uses to pick same-CPU or
 * cross-CPU round trips). Each operation loads the message from the
 * caller's registers and optional struct ipc_extra, runs, and stores the
 * received message back (registers layout in abi/ipc.h).
 *
 * A register-only call or reply_recv tries the IPC fast path first
 * (ipc_fastpath.h, inline in sys_ipc()); where it does not
 * apply, the handlers below make every check themselves.
 */
#include <stddef.h>

#include "abi/errno.h"
#include "abi/ipc.h"
#include "abi/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "ipc/ipc.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "syscall/ipc_fastpath.h"
#include "syscall/syscall.h"

struct ipc_request {
	bool has_extra;
	struct ipc_extra extra;
	uint64_t deadline_ns;
};

static int load_extra(struct trap_frame *f, struct ipc_request *req)
{
	req->has_extra = SYSARG2(f) != 0;
	req->deadline_ns = 0;
	if (!req->has_extra) {
		return 0;
	}
	int err = copy_from_user(&req->extra, SYSARG2(f), sizeof(req->extra));
	if (err) {
		return err;
	}
	if (req->extra.send_len > IPC_BUF_MAX || req->extra.recv_max > IPC_BUF_MAX) {
		return -E2BIG;
	}
	if (req->extra.recv_max && ipc_buffer_ensure(thread_current())) {
		return -ENOMEM;
	}
	req->deadline_ns = syscall_deadline(req->extra.timeout_ns);
	return 0;
}

/* Stages the message to send in the thread's ipc.msg. */
static int load_message(struct trap_frame *f, const struct ipc_request *req)
{
	struct thread *t = thread_current();
	struct ipc_msg *msg = &t->ipc.msg;

	if (!ipc_load_regs(msg, f)) {
		return -EINVAL;
	}
	if (!req->has_extra) {
		return 0;
	}
	const struct ipc_extra *x = &req->extra;
	if (x->send_len) {
		int err = ipc_buffer_ensure(t);
		if (!err) {
			err = copy_from_user(msg->buf, x->send_buf, x->send_len);
		}
		if (err) {
			return err;
		}
		msg->len = x->send_len;
	}
	if (x->send_cap != IPC_NO_CAP) {
		int err = cspace_get(&t->proc->caps, x->send_cap, CAP_KIND_NONE, CAP_RIGHT_GRANT,
				     &msg->cap);
		if (err) {
			return err;
		}
		cap_restrict(&msg->cap, x->send_cap_rights);
		msg->has_cap = true;
	}
	return 0;
}

/* Drops a capability still staged (the operation failed before it left). */
void sys_ipc_unload_message(void)
{
	struct ipc_msg *msg = &thread_current()->ipc.msg;

	if (msg->has_cap) {
		msg->has_cap = false;
		cap_put(&msg->cap);
	}
}

/* Hands the received message to user space. */
static int store_message(struct trap_frame *f, const struct ipc_request *req)
{
	struct thread *t = thread_current();
	struct ipc_msg *msg = &t->ipc.msg;
	uint32_t cap_slot = IPC_NO_CAP;
	int err = 0;

	ipc_store_regs(f, msg);
	if (msg->has_cap) {
		/* Without an ipc_extra there is nowhere to report the slot: the cap is dropped. */
		int slot = req->has_extra ? cspace_insert(&t->proc->caps, &msg->cap, CAP_SLOT_ANY)
					  : -ENOSPC;
		cap_slot = slot < 0 ? IPC_NO_CAP : (uint32_t)slot;
		sys_ipc_unload_message();
		err = req->has_extra && slot < 0 ? slot : 0;
	}
	if (!req->has_extra) {
		return err;
	}
	if (msg->len) {
		int copy_err = copy_to_user(req->extra.recv_buf, msg->buf, msg->len);
		err = err ? err : copy_err;
	}
	uint32_t out[4] = {msg->len, cap_slot, msg->sender_pid, 0};
	int out_err =
	    copy_to_user(SYSARG2(f) + offsetof(struct ipc_extra, recv_len), out, sizeof(out));
	return err ? err : out_err;
}

static int get_endpoint(struct trap_frame *f, uint32_t right, struct cap *c)
{
	return cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_ENDPOINT,
			  right, c);
}

int64_t sys_endpoint_create(struct trap_frame *f)
{
	struct endpoint *ep;

	(void)f;
	int err = endpoint_create(process_current()->acct, &ep);
	if (err) {
		return err;
	}
	struct cap c = {.kind = CAP_KIND_ENDPOINT, .rights = CAP_RIGHTS_ALL, .obj = ep};
	endpoint_get(ep, c.rights); /* our own reference, dropped below */
	int slot = cspace_insert(&process_current()->caps, &c, CAP_SLOT_ANY);
	endpoint_put(ep, c.rights);
	return slot;
}

int64_t sys_endpoint_mint(struct trap_frame *f)
{
	struct cap c;
	int err = get_endpoint(f, 0, &c);

	if (err) {
		return err;
	}
	int result = -EINVAL;
	if (!c.badge && SYSARG1(f)) {
		struct cap minted = c;
		minted.badge = SYSARG1(f);
		minted.rights &= sysarg_u32(SYSARG2(f));
		result = cspace_insert(&process_current()->caps, &minted, CAP_SLOT_ANY);
	}
	cap_put(&c);
	return result;
}

/* The four IPC operations share their decoding and result handling. */
static int64_t do_ipc(struct trap_frame *f, int op)
{
	struct ipc_request req;
	struct cap c = {0};
	int err = load_extra(f, &req);
	uint32_t recv_max = req.has_extra ? req.extra.recv_max : 0;

	if (!err && op != SYS_ipc_reply) {
		err = get_endpoint(f, op == SYS_ipc_call ? CAP_RIGHT_WRITE : CAP_RIGHT_READ, &c);
	}
	if (!err && op != SYS_ipc_recv) {
		err = load_message(f, &req);
	}
	if (!err) {
		switch (op) {
		case SYS_ipc_call:
			err = ipc_call(c.obj, c.badge, recv_max, req.deadline_ns);
			break;
		case SYS_ipc_recv:
			err = ipc_recv(c.obj, recv_max, req.deadline_ns);
			break;
		case SYS_ipc_reply:
			err = ipc_reply();
			break;
		default:
			err = ipc_reply_recv(c.obj, recv_max, req.deadline_ns);
			break;
		}
	}
	if (c.kind != CAP_KIND_NONE) {
		cap_put(&c);
	}
	if (err) {
		sys_ipc_unload_message(); /* a capability that never left */
	} else if (op != SYS_ipc_reply) {
		err = store_message(f, &req);
	}
	return err;
}

int64_t sys_ipc_call(struct trap_frame *f)
{
	return do_ipc(f, SYS_ipc_call);
}

int64_t sys_ipc_recv(struct trap_frame *f)
{
	return do_ipc(f, SYS_ipc_recv);
}

int64_t sys_ipc_reply(struct trap_frame *f)
{
	return do_ipc(f, SYS_ipc_reply);
}

int64_t sys_ipc_reply_recv(struct trap_frame *f)
{
	return do_ipc(f, SYS_ipc_reply_recv);
}

int64_t sys_thread_set_cpu(struct trap_frame *f)
{
	int64_t cpu = (int64_t)SYSARG0(f);

	if (cpu < -1 || cpu >= (int64_t)ncpus) {
		return -EINVAL;
	}
	sched_pin((int)cpu);
	return 0;
}
