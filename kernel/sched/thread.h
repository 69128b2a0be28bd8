/*
 * thread: a kernel-scheduled thread, with its own kernel stack. User
 * threads belong to a process and enter user mode from the trap frame at
 * the top of their kernel stack; each CPU's idle thread belongs to none.
 *
 * Lock legend: [I] immutable after creation, [a] atomic, [o] only the
 * thread itself or the CPU running it, [rq] its run queue's lock, [w] the
 * lock of the wait queue it sleeps on, [t] the timer lock (sched.c), [p]
 * its process's lock.
 */
#ifndef SPOOR_SCHED_THREAD_H
#define SPOOR_SCHED_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/proc.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/switch.h"
#include "lib/list.h"
#include "ipc/ipc.h"
#include "sched/wait.h"
#include "trace/graph_stack.h"

/* Why a blocked thread was woken. */
#define WAKE_EVENT   0
#define WAKE_TIMEOUT 1
#define WAKE_KILL    2

struct process;

struct thread {
	uint64_t kernel_rsp; /* [o] where it resumes: switch_context or the IPC fast path set it */
	uint32_t tid;	     /* [I] */
	uint32_t state;	     /* [a] THREAD_* from abi/proc.h */
	uint32_t cpu;	     /* [a] where it runs or last ran */
	int32_t pin_cpu;     /* [o] the only CPU it may run on, or -1 */
	bool on_cpu;	     /* [a] its registers are live on a CPU, not saved */
	bool killed;	     /* [a] exit at the next return to user mode */
	uint8_t wake_reason; /* [a] WAKE_* */
	uint8_t trace_ctx;   /* [o] its events' context while it is switched out (switch.h) */
	bool trace_quiet;    /* [p] written, [a] read: its process is quiet (TTRACE_OP_QUIET) */
	uint64_t trace_ids;  /* [I] pid | tid << 32, as its trace events carry them (pid 0: idle) */
	struct process *proc;	  /* [I] NULL for idle threads */
	uint8_t *kstack;	  /* [I] base of the kernel stack, KSTACK_SIZE bytes */
	struct trap_frame *frame; /* [I] user registers, at the top of kstack */
	struct list run_node;	  /* [rq] on a run queue */
	struct list proc_node;	  /* [p] in proc->threads */
	struct list wait_node;	  /* [w] on a wait queue */
	struct list timer_node;	  /* [t] on the timed sleepers */
	uint64_t deadline_ns;	  /* [t] wake-up time when timed */
	int64_t exit_status;	  /* [p] once EXITED */
	bool joining;		  /* [p] a thread is waiting to join it */
	bool detached;		  /* [p] unjoinable: detached, or joined */
	bool released;		  /* [p] EXITED and off its CPU for good */
	bool exited;		  /* [join_wait.lock] it has called thread_exit() */
	struct waitq join_wait;	  /* woken when it exits */
	uint64_t cpu_ns;	  /* [o] time it has run, updated at each switch */
	uint64_t run_start_ns;	  /* [o] when it last got a CPU */
	struct ipc_state ipc;	  /* its part in IPC (ipc.h) */
	struct graph_stack graph; /* [o] trace graph's calls under way (trace/graph.h) */
};

/* The thread running on this CPU; inline, as nearly every syscall asks several times. */
static inline struct thread *thread_current(void)
{
	return this_cpu()->current;
}

/*
 * The kernel_rsp of a user thread whose stack holds, right below its trap
 * frame, the address to resume at and below it room for the registers
 * switch_context() restores (arch/x86_64/switch.h): a new thread's stack,
 * and one the syscall entry prepared for the IPC fast path.
 */
static inline uint64_t thread_resume_rsp(const struct thread *t)
{
	return (uintptr_t)t->frame - (SWITCH_SAVED_REGS + 1) * sizeof(uint64_t);
}

/*
 * Creates a user thread of p that will enter user mode at rip with rsp,
 * rdi and rsi as given; *out is it, BLOCKED on no queue until the caller
 * passes it to sched_start() (or a kill wakes it, to exit without ever
 * entering user mode: sched_return_to_user()). 0, -ENOMEM, or
 * what process_add_thread() answers (-EINVAL: p is ending; -EAGAIN: p
 * holds PROC_THREADS_MAX thread records).
 */
int thread_create_user(struct process *p, uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rsi,
		       struct thread **out);

/* Turns the calling CPU's boot context into its idle thread. */
void thread_init_idle(void);

/*
 * Ends the calling thread with status; the last thread of a process ends
 * the process (process_thread_exited). Never returns.
 */
__attribute__((noreturn)) void thread_exit(int64_t status);

/* Asks t to exit: wakes it if it sleeps, and makes its CPU look at it. */
void thread_kill(struct thread *t);

/* Frees a user thread's kernel stack. */
void thread_stack_free(uint8_t *kstack);

/* Frees an exited thread's record, once it is off its CPU (process.h says who calls it). */
void thread_free(struct thread *t);

#endif
