/*
 * table: the dispatch table, generated from abi/syscalls.def, and the
 * entries into it. The entries are entry code the function tracer may
 * not trace (marked notrace: the Makefile's FUNC_NOTRACE_MARKED), all
 * but sys_ipc(), the one function every IPC call enters, fast path or
 * slow, which `trace graph sys_ipc` makes the graph's root.
 */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/func.h"
#include "trace/ktrace.h"
#include "syscall/ipc_fastpath.h"
#include "syscall/syscall.h"

typedef int64_t (*syscall_fn)(struct trap_frame *f);

static const syscall_fn table[SYS_COUNT] = {
#define SYSCALL(nr, name, nargs) [nr] = sys_##name,
#include "abi/syscalls.def"
#undef SYSCALL
};

/* Runs system call nr's handler, with interrupts on, and records its end. */
static inline void run(struct trap_frame *f, uint64_t nr)
{
	irq_enable();
	/* a number the list skips has no handler */
	f->rax = (uint64_t)(nr < SYS_COUNT && table[nr] ? table[nr](f) : -ENOSYS);
	TTRACE(syscall_exit, nr, f->rax);
}

/* The start every system call shares: what its events say it is doing, then its entry event. */
static inline void enter(const struct trap_frame *f, uint64_t nr)
{
	percpu_set_trace_ctx(TTRACE_CTX_SYSCALL);
	TTRACE(syscall_entry, nr, SYSARG0(f), SYSARG1(f), SYSARG2(f));
}

notrace void syscall_dispatch(struct trap_frame *f)
{
	uint64_t nr = f->rax;

	enter(f, nr);
	run(f, nr);
	sched_syscall_return();
}

struct syscall_leave sys_ipc(struct trap_frame *f)
{
	uint64_t nr = f->rax;
	struct syscall_leave leave;

	enter(f, nr);
	if (!SYSARG2(f) && sys_ipc_fastpath(thread_current(), f, nr, &leave)) {
		return leave;
	}
	run(f, nr);
	return (struct syscall_leave){.frame = f, .release = NULL};
}

notrace void syscall_return(struct thread *release)
{
	if (release) {
		/*
		 * release: its registers are saved and its stack left; pairs with
		 * the acquire load of on_cpu in switch_prepare() and the scheduler.
		 */
		__atomic_store_n(&release->on_cpu, false, __ATOMIC_RELEASE);
	}
	sched_syscall_return();
}

notrace void syscall_ipc_resumed(struct trap_frame *f)
{
	uint64_t nr = f->rax; /* still the syscall's number */
	struct thread *t = thread_current();
	int result = ipc_fast_collect(t);

	/* The message came straight into our registers; a capability has nowhere to go. */
	if (__builtin_expect(t->ipc.msg.has_cap, 0)) {
		irq_enable(); /* dropping it may free its object: not with interrupts off */
		sys_ipc_unload_message();
	}
	f->rax = (uint64_t)(int64_t)result;
	TTRACE(syscall_exit, nr, f->rax);
	sched_syscall_return();
}

notrace uint64_t syscall_deadline(uint64_t timeout_ns)
{
	if (timeout_ns == TIMEOUT_FOREVER) {
		return 0;
	}
	uint64_t now = timer_now_ns();
	/* 0 means "no deadline" to the sleepers, so even a poll gets one (>= 1). */
	return timeout_ns >= UINT64_MAX - now ? 0 : now + timeout_ns + 1;
}
