/*
 * ipc_fastpath: the IPC fast path's entry from sys_ipc() (table.c),
 * inline there so that a fast round trip crosses one C frame fewer.
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
#include "ipc/ipc.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "syscall/syscall.h"
#include "trace/ktrace.h"

/* Drops a capability still staged in the current thread's ipc.msg (sys_ipc.c). */
void sys_ipc_unload_message(void);

/*
 * The IPC fast path for the register-only ipc_call or ipc_reply_recv nr of
 * me, with interrupts off (and left off: the return to user mode restores
 * them). True when it has done the syscall and switched to the partner,
 * which leaves through *leave, its own syscall over with result 0 (in its
 * context: the CPU is the partner's now); false, having changed nothing,
 * when the fast path does not apply (ipc_fast_call() in ipc/ipc.h says
 * when). It does not return when the partner was blocked elsewhere than
 * on the fast path: that partner resumes where it blocked. Either way the
 * syscall of me ends when it resumes.
 */
static inline bool sys_ipc_fastpath(struct thread *me, struct trap_frame *f, uint64_t nr,
				    struct syscall_leave *leave)
{
	struct cspace *caps = &me->proc->caps;
	uint32_t slot = sysarg_u32(SYSARG0(f));
	struct thread *next =
	    nr == SYS_ipc_call ? ipc_fast_call(caps, slot, f) : ipc_fast_reply_recv(caps, slot, f);
	if (!next) {
		return false;
	}
	struct trap_frame *nf = next->frame;
	uint64_t next_nr = nf->rax; /* still its syscall's number */
	nf->rax = 0;
	TTRACE(syscall_exit, next_nr, 0);
	*leave = (struct syscall_leave){.frame = nf, .release = me};
	return true;
}

#endif
