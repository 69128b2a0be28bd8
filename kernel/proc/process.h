/*
 * process: an address space, a capability table and threads.
 *
 * Lifetime: a process is ALIVE until its last thread exits, which tears
 * down its memory and capabilities, kills the processes it spawned (they
 * end with it: abi/proc.h; a tree's root kills its whole tree at once,
 * which takes no new process after that) and makes it DEAD, keeping only
 * its exit status for whoever holds a process capability. The struct
 * itself is freed when its last reference goes: one for being alive, one
 * per thread until that thread is off its CPU for good, one per
 * capability, one per process of the tree it roots (tree_root).
 *
 * A thread's record (struct thread) lives on the process's list from its
 * creation until it is both off its CPU for good (released) and unjoinable
 * (detached, or joined): whichever of the two comes second frees it, under
 * the process lock. The records count against PROC_THREADS_MAX.
 *
 * Lock legend: [I] immutable, [a] atomic, [L] lock, [table] the process
 * table lock (process.c).
 */
#ifndef SPOOR_PROC_PROCESS_H
#define SPOOR_PROC_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/proc.h"
#include "cap/cspace.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/uvm.h"
#include "sched/wait.h"

#define PROC_ALIVE 0
#define PROC_DEAD  1

struct thread;
struct mem_account;

struct process {
	uint32_t pid;		   /* [I] */
	uint32_t ppid;		   /* [I] */
	char name[PROC_NAME_MAX];  /* [I] */
	uint32_t refs;		   /* [a] */
	struct spinlock lock;	   /* guards the fields marked [L] */
	struct list threads;	   /* [L] every thread not yet freed */
	uint32_t live_threads;	   /* [L] threads not EXITED */
	uint32_t nthreads;	   /* [L] records on threads: at most PROC_THREADS_MAX */
	uint32_t unreleased;	   /* [a] threads not yet off their CPU for good */
	struct process *tree_root; /* [I] the child of init whose tree it is in (itself for one) */
	uint32_t tree_procs;	   /* [a] for a tree root: its tree's live processes */
	bool tree_ended;	   /* [a] for a tree root: it ended, so its tree takes no process */
	struct mem_account *acct;  /* [I] its tree's memory account (mm/account.h) */
	uint32_t state;		   /* [L] PROC_* */
	bool tracked;		   /* [a] PID tracking (abi/trace.h TTRACE_OP_TRACK) */
	bool quiet;		   /* [a] its events are left out (abi/trace.h TTRACE_OP_QUIET) */
	uint64_t page_faults;	   /* [a] taken by its threads or by the kernel for it */
	struct thread *unstarted;  /* [L] a SPAWN_STOPPED process's main thread, until started */
	bool status_set;	   /* [L] exit_status is final */
	int64_t exit_status;	   /* [L] */
	struct waitq exit_wait;	   /* woken when it becomes DEAD */
	bool torn_down;		   /* [a] its teardown began: nothing may load its space any more */
	struct vm vm;		   /* its memory (uvm.h) */
	struct cspace caps;	   /* its capabilities */
	struct list table_node;	   /* [table] */
};

/*
 * Creates an empty ALIVE process (no threads) with one reference, spawned
 * by parent (NULL for the kernel's first). A process whose parent has no
 * parent roots a tree of its own, with a new memory account of mem_limit
 * bytes (0: the default) and mem_flags (ACCOUNT_*); any other joins its
 * parent's tree and account, and the two are ignored. -ENOMEM, or -EAGAIN
 * when that tree already has PROC_TREE_MAX processes or its root has
 * ended (every process of it is being killed).
 */
int process_create(const char *name, struct process *parent, uint64_t mem_limit, uint32_t mem_flags,
		   struct process **out);

void process_get(struct process *p);
void process_put(struct process *p);

/*
 * Ends p with status (the first status given wins): every thread is asked
 * to exit; the last one out tears the process down.
 */
void process_exit(struct process *p, int64_t status);

/*
 * Keeps t, the new main thread of p (spawned SPAWN_STOPPED), from running
 * until process_start(); nothing if p is ending already (its kill has
 * woken t, to exit).
 */
void process_hold_start(struct process *p, struct thread *t);

/*
 * Lets the main thread of a process held by process_hold_start() run:
 * 0, or -EINVAL if it was started already, or was killed before.
 */
int process_start(struct process *p);

/*
 * Registers a new thread of p (takes a reference): 0, -EINVAL if p is
 * ending, -EAGAIN if p already holds PROC_THREADS_MAX thread records.
 */
int process_add_thread(struct process *p, struct thread *t);

/*
 * Called by thread_exit() for t: returns true if t was the last thread,
 * in which case the caller must call process_teardown().
 */
bool process_thread_exited(struct process *p, struct thread *t, int64_t status);

/*
 * Frees p's memory and capabilities, kills the live processes it spawned,
 * leaves its tree, makes it DEAD and wakes its waiters.
 */
void process_teardown(struct process *p);

/*
 * After a context switch away from the EXITED thread t, whose registers
 * are saved (sched_finish_switch): frees its kernel stack, and its record
 * too if nobody can join it. Interrupts off.
 */
void process_thread_released(struct thread *t);

/*
 * Loads p's address space on this CPU: the kernel's for NULL, and for a p
 * whose teardown has begun, as its last thread may be scheduled in the
 * middle of it (sched_preempt_point()) while its page tables go.
 */
void process_activate(struct process *p);

/* The process of the running thread. */
struct process *process_current(void);

/*
 * Waits until p is DEAD or deadline_ns passes (0: no limit); stores the
 * status. 0, -ETIMEDOUT, or -EINTR when the caller is killed.
 */
int process_wait(struct process *p, uint64_t deadline_ns, int64_t *status);

/*
 * Waits for thread tid of p (not the caller) to exit, stores its status and
 * frees it. -ENOENT (no such thread, or already joined), -EINVAL (itself,
 * detached, or joined by another), -EINTR when the caller is killed.
 */
int process_join_thread(struct process *p, uint32_t tid, int64_t *status);

/*
 * Makes thread tid of p unjoinable: its record is freed once it has exited
 * and is off its CPU (at once if it already is). Itself is allowed.
 * -ENOENT (no such thread, or already joined), -EINVAL (already detached,
 * or a join is waiting for it).
 */
int process_detach_thread(struct process *p, uint32_t tid);

/*
 * Kills the live process pid (EXIT_KILLED), which must be in caller's
 * subtree: spawned by caller, or by a process in that subtree. 0, -ENOENT
 * (no live process pid), -EPERM (not below caller; caller itself included).
 */
int process_kill_descendant(struct process *caller, uint32_t pid);

/* Ends every live process of p's tree, p included, with status. */
void process_kill_tree(struct process *p, int64_t status);

/*
 * The root of the tree with a live process that uses the most memory
 * (account.h), init's own excepted, among the ordinary trees or, with
 * kept, all of them; with a reference for the caller to put. NULL if none
 * uses any.
 */
struct process *process_largest_tree(bool kept);

/* Fills up to max records about live threads; returns how many. */
uint32_t process_list_threads(struct thread_info *out, uint32_t max);

/*
 * Sets one of the live process pid's trace flags (PROC_TRACKED: PID
 * tracking; PROC_QUIET: its events are left out) on or off: 0, or
 * -ENOENT if there is none.
 */
#define PROC_TRACKED 0
#define PROC_QUIET   1
int process_set_trace_flag(uint32_t pid, uint32_t flag, bool on);

/* No live process is tracked any more. */
void process_untrack_all(void);

/* Number of live processes. */
uint32_t process_count(void);

#endif
