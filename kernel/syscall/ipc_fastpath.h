/*
 * ipc_fastpath: the IPC fast path's entry from syscall_dispatch(), inline
 * there so that a fast round trip crosses one C frame fewer each way.
 *
 * A register-only call or reply_recv (no struct ipc_extra) tries the fast
 * path first, straight from the syscall entry with interrupts still off.
 * It needs none of the generic decoding: no ipc_extra, no buffer, and the
 * capability looked up once, without a reference of its own. Where it does
 * not apply it has done nothing, and the handler in sys_ipc.c starts over
 * and makes every check itself, so errors come in the same order either way.
 */
#ifndef SPOOR_SYSCALL_IPC_FASTPATH_H
#define SPOOR_SYSCALL_IPC_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/syscall.h"
#include "arch/x86_64/cpu.h"
#include "ipc/ipc.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "syscall/syscall.h"

/* Drops a capability still staged in the current thread's ipc.msg (sys_ipc.c). */
void sys_ipc_unload_message(void);

/*
 * The IPC fast path for a register-only ipc_call or ipc_reply_recv, tried
 * before any handler with interrupts off (and left off: the return to user
 * mode restores them). True when it has done the syscall, its result in
 * *result; false, having changed nothing, for any other syscall or when
 * the fast path does not apply (ipc_fast_call() in ipc/ipc.h says when).
 */
static inline bool sys_ipc_fastpath(struct trap_frame *f, int64_t *result)
{
	uint64_t nr = f->rax;
	int err;

	if ((nr != SYS_ipc_call && nr != SYS_ipc_reply_recv) || SYSARG2(f)) {
		return false;
	}
	struct thread *t = thread_current();
	struct cspace *caps = &t->proc->caps;
	uint32_t slot = sysarg_u32(SYSARG0(f));
	bool done = nr == SYS_ipc_call ? ipc_fast_call(caps, slot, f, &err)
				       : ipc_fast_reply_recv(caps, slot, f, &err);
	if (!done) {
		return false;
	}
	/* The message came straight into our registers; a capability has nowhere to go. */
	if (__builtin_expect(t->ipc.msg.has_cap, 0)) {
		irq_enable(); /* dropping it may free its object: not with interrupts off */
		sys_ipc_unload_message();
	}
	*result = err;
	return true;
}

#endif
