/*
 * syscall: one handler per entry of abi/syscalls.def, each taking the
 * caller's trap frame. A handler decodes and checks every argument first,
 * then calls into the subsystem; it returns >= 0 or -E*.
 */
#ifndef SPOOR_SYSCALL_SYSCALL_H
#define SPOOR_SYSCALL_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/idt.h"

/* Arguments in syscall order (abi/syscalls.def). */
#define SYSARG0(f) ((f)->rdi)
#define SYSARG1(f) ((f)->rsi)
#define SYSARG2(f) ((f)->rdx)
#define SYSARG3(f) ((f)->r10)
#define SYSARG4(f) ((f)->r8)
#define SYSARG5(f) ((f)->r9)

/*
 * A 32-bit argument (a slot, a prot, an op): values that do not fit become
 * UINT32_MAX, which no such argument accepts, rather than being truncated
 * into a valid one.
 */
static inline uint32_t sysarg_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * 0 if the caller holds, in the slot argument, trace control with write
 * (what every call that changes tracing needs), else cspace_get()'s error.
 */
int syscall_need_trace_control(uint64_t slot);

#define SYSCALL(nr, name, nargs) int64_t sys_##name(struct trap_frame *f);
#include "abi/syscalls.def"
#undef SYSCALL

/* Called by syscall_entry.S with interrupts still masked; it enables them. */
void syscall_dispatch(struct trap_frame *f);

struct thread;

/*
 * How a system call that may switch threads without the scheduler leaves
 * the kernel: from frame, the trap frame of the thread now current, once
 * syscall_entry.S has moved onto its stack; release, if not NULL, is the
 * thread switched away from, whose stack it has then left.
 */
struct syscall_leave {
	struct trap_frame *frame;
	struct thread *release;
};

/*
 * syscall_dispatch() for ipc_call and ipc_reply_recv, which may take the
 * IPC fast path (ipc_fastpath.h): the IPC system calls' one entry, and a
 * traceable function (`trace graph sys_ipc`), its struct in rax:rdx kept
 * by the graph's return hook. syscall_entry.S prepared the stack below
 * f to resume at ipc_fast_resume. syscall_return() then runs on the stack
 * of the thread leaving: it clears release's on_cpu and does what the
 * return to user mode needs.
 */
struct syscall_leave sys_ipc(struct trap_frame *f);
void syscall_return(struct thread *release);

/*
 * Where a thread blocked on the IPC fast path resumes when anyone but a
 * fast-path partner woke it (ipc_fast_resume in syscall_entry.S): finishes
 * its system call with its frame f.
 */
void syscall_ipc_resumed(struct trap_frame *f);

/* A deadline in clock time for a timeout argument (abi/syscall.h). */
uint64_t syscall_deadline(uint64_t timeout_ns);

#endif
