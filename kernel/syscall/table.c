/*
 * table: the dispatch table, generated from abi/syscalls.def.
 */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/timer.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/ktrace.h"
#include "syscall/ipc_fastpath.h"
#include "syscall/syscall.h"

typedef int64_t (*syscall_fn)(struct trap_frame *f);

static const syscall_fn table[SYS_COUNT] = {
#define SYSCALL(nr, name, nargs) [nr] = sys_##name,
#include "abi/syscalls.def"
#undef SYSCALL
};

void syscall_dispatch(struct trap_frame *f)
{
	uint64_t nr = f->rax;

	thread_current()->trace_ctx = TTRACE_CTX_SYSCALL;
	TTRACE(syscall_entry, nr, SYSARG0(f), SYSARG1(f), SYSARG2(f));
	int64_t result;
	if (!sys_ipc_fastpath(f, &result)) {
		irq_enable();
		result = nr < SYS_COUNT ? table[nr](f) : -ENOSYS;
	}
	f->rax = (uint64_t)result;
	TTRACE(syscall_exit, nr, f->rax);
	sched_syscall_return();
}

uint64_t syscall_deadline(uint64_t timeout_ns)
{
	if (timeout_ns == TIMEOUT_FOREVER) {
		return 0;
	}
	uint64_t now = timer_now_ns();
	/* 0 means "no deadline" to the sleepers, so even a poll gets one (>= 1). */
	return timeout_ns >= UINT64_MAX - now ? 0 : now + timeout_ns + 1;
}
