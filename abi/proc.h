/*
 * Processes and threads as user space sees them: spawn's arguments, exit
 * statuses, and the records sys_info and thread_list fill in.
 */
#ifndef SPOOR_ABI_PROC_H
#define SPOOR_ABI_PROC_H

#include <stddef.h>
#include <stdint.h>

#define PROC_NAME_MAX  32
#define SPAWN_ARGS_MAX 1024 /* bytes of argument strings, NULs included */
#define SPAWN_CAPS_MAX 16

/* spawn copies capability caps[i].src of the caller into caps[i].dst of the child. */
struct spawn_cap {
	uint32_t src;
	uint32_t dst;
	uint32_t rights; /* the copy's rights: src's rights masked by these */
	uint32_t reserved;
};

struct spawn_args {
	uint64_t name;	   /* const char *: the boot module to run */
	uint64_t args;	   /* const char *: argv strings, each NUL-terminated, argv[0] first */
	uint32_t args_len; /* bytes at args */
	uint32_t ncaps;
	uint64_t caps;	    /* const struct spawn_cap *, ncaps of them */
	uint64_t mem_limit; /* bytes the new tree may use (see MEMORY below); 0: the default */
	uint32_t flags;	    /* SPAWN_* */
	uint32_t reserved;  /* 0 */
};

_Static_assert(sizeof(struct spawn_cap) == 16, "abi");
_Static_assert(sizeof(struct spawn_args) == 48, "abi");

/*
 * MEMORY. Every frame and kernel object a process causes (its pages,
 * frame objects, page tables, kernel stacks, IPC buffers, regions) is
 * charged to its tree (see PROC_TREE_MAX below) until it is freed. A tree
 * may use at most its limit: mem_limit when init spawned its root (any
 * other spawner must leave mem_limit 0: its child joins its own tree),
 * else half of the machine's frames. Past it the syscall that needed the
 * memory answers -ENOMEM, and a page fault that cannot be served kills the
 * whole tree, with one console line. The last 1/16 of memory is kept for
 * init and the servers it keeps, which no other tree can take, not even
 * through the kernel objects it causes. A fault that finds no memory while
 * its tree is under its limit kills the largest ordinary tree instead
 * (its own if that is the largest) and is taken again; init never dies
 * for memory, and a kept server whose tree is the largest dies itself.
 *
 * SPAWN_KEPT (init only, else -EPERM): a server init keeps. Its tree may
 * use the memory kept back and has no limit, and its stack and writable
 * segments are committed at spawn (every page gets its frame), so serving
 * never faults for memory; mem_commit (abi/syscalls.def) commits more.
 */
#define SPAWN_KEPT (1u << 0)

/*
 * SPAWN_STOPPED: the process and its main thread are made, but the thread
 * does not run until process_start(slot) on the process capability spawn
 * returned (CAP_RIGHT_START), so the spawner can say the pid, or hand it
 * on, before the program's first instruction. A stopped process is alive:
 * wait sees it running, kill (and its parent's end) ends it without it
 * ever running, and its memory is charged and freed as any other's.
 * process_start answers -EINVAL once the process was started or killed.
 */
#define SPAWN_STOPPED (1u << 1)
#define SPAWN_FLAGS   (SPAWN_KEPT | SPAWN_STOPPED)

/*
 * Program entry: the main thread starts at the ELF entry point with rsp
 * 16-byte aligned and pointing at argc (uint64_t), followed by argv[0] ..
 * argv[argc-1] and a NULL, then the strings; rdi = argc and rsi = argv too.
 * A thread from thread_create starts at entry with rsp = stack_top exactly
 * (nothing pushed) and rdi = arg. The kernel preserves every register
 * across `syscall` except rax (the result), rcx and r11.
 */

/*
 * Exit statuses: what exit() passed (0..255 by convention), or one of these
 * for a process the kernel ended.
 */
#define EXIT_ABORTED	      134 /* abort() and failed asserts: 128 + SIGABRT, as Unix shells say */
#define EXIT_KILLED	      0x100		 /* by kill() */
#define EXIT_FAULT(vector)    (0x200 | (vector)) /* by a fault: the exception vector */
#define EXIT_IS_FAULT(status) (((status) & ~0xffll) == 0x200)
#define EXIT_NO_MEMORY	      0x300 /* its tree ran out of memory (MEMORY below) */

/*
 * Limits (the kernel answers -EAGAIN past them, having changed nothing):
 *
 * PROC_THREADS_MAX: thread records a process may hold at once. A thread
 * holds its record from thread_create until it is unjoinable and off its
 * CPU: unjoinable once joined, or once detached (thread_detach: nobody
 * will join it, so the kernel frees it as soon as it has exited). An
 * exited thread nobody has joined or detached keeps its record, and its
 * exit status, for thread_join: it counts until then.
 *
 * PROC_TREE_MAX: live processes in one tree. Every process init spawns
 * starts a tree; what it spawns, and what they spawn, belong to it. The
 * root counts, so a tree's processes may spawn PROC_TREE_MAX - 1 more
 * between them: a spawn bomb stops there.
 *
 * A process's children end with it: when the last thread of a process
 * exits, every process it spawned that is still alive is killed
 * (EXIT_KILLED), and so on down the tree. The end of a tree's root kills
 * every process of its tree at once, and a spawn in that tree answers
 * -EAGAIN from then on: a tree that keeps spawning cannot outgrow its
 * root's end. A process's parent never changes, and kill_pid reaches
 * every process of the caller's subtree.
 */
#define PROC_THREADS_MAX 64
#define PROC_TREE_MAX	 64

/* Thread states: value, NAME (THREAD_<NAME>), the name ps and the trace readers print. */
#define THREAD_STATES(X)                                                                           \
	X(0, RUNNING, running)	 /* on a CPU now */                                                \
	X(1, READY, ready)	 /* waiting for a CPU */                                           \
	X(2, BLOCKED, blocked)	 /* waiting for an event */                                        \
	X(3, SLEEPING, sleeping) /* waiting for time */                                            \
	X(4, EXITED, exited)	 /* ended; its record waits for a join (ps never lists it) */

enum {
#define THREAD_(value, NAME, name) THREAD_##NAME = value,
	THREAD_STATES(THREAD_)
#undef THREAD_
	    THREAD_STATE_LIMIT
};

#define THREAD_INFO_TRACKED (1u << 0) /* its process is PID-tracked (abi/trace.h) */
#define THREAD_INFO_QUIET   (1u << 1) /* its process's events are left out (TTRACE_OP_QUIET) */

struct thread_info {
	uint32_t pid;
	uint32_t tid;
	uint32_t state;	    /* THREAD_* */
	uint32_t cpu;	    /* where it runs or last ran */
	uint64_t mem_pages; /* the process's resident pages */
	uint64_t cpu_ns;    /* time it has been running */
	char name[PROC_NAME_MAX];
	uint32_t ppid;	      /* the process that spawned it; 0 for init */
	uint32_t flags;	      /* THREAD_INFO_* */
	uint64_t page_faults; /* the process's, each one a mem_pf event when mem is traced */
	uint32_t tree_pid;    /* the root of its tree (itself for one; 1 for init's) */
	uint32_t reserved;
	uint64_t tree_mem;	 /* bytes charged to its tree (see MEMORY above) */
	uint64_t tree_mem_limit; /* its tree's limit in bytes; UINT64_MAX: none */
};

_Static_assert(sizeof(struct thread_info) == 104, "abi");

/*
 * Boot programs: a module2 line's string is the program's name, then its
 * attributes; "server" marks one init starts at boot and keeps running.
 */
#define PROGRAM_SERVER (1u << 0)

struct program_info {
	char name[PROC_NAME_MAX];
	uint32_t flags; /* PROGRAM_* */
	uint32_t reserved;
};

_Static_assert(sizeof(struct program_info) == 40, "abi");

#define SYS_INFO_CPUS 8

struct sys_info {
	uint32_t ncpus;
	uint32_t nprocs;
	uint64_t frames_free;
	uint64_t frames_total;
	uint64_t uptime_ns;
	uint64_t tsc_hz;
	uint64_t cpu_busy_ns[SYS_INFO_CPUS];	 /* time not spent idle */
	uint32_t cpu_running_tid[SYS_INFO_CPUS]; /* 0: the idle thread, unless the CPU is stuck */
	uint32_t cpu_ready[SYS_INFO_CPUS];	 /* threads on its run queue */
	uint64_t frames_reserved; /* of the free ones, kept for init and its servers */
	/*
	 * The lockup detector's view (ttrace.watchdog=; all 0 when it is
	 * off): how long the CPU has made no progress (not scheduled nor
	 * gone back to user mode), once that is past half the detector's
	 * limit, else 0; and how many of the detector's NMIs it took after
	 * the report stopped waiting for them (ignored).
	 */
	uint32_t cpu_stuck_ms[SYS_INFO_CPUS];
	uint32_t cpu_flags[SYS_INFO_CPUS]; /* SYS_CPU_* */
	uint32_t cpu_late_nmis[SYS_INFO_CPUS];
	/*
	 * Times the frame allocator's lock and the kernel heap's lock were
	 * taken since boot: what freeing and allocating cost the other CPUs,
	 * which ending a tree must pay once a batch of frames or records,
	 * not once a page (tests/programs/memhog locks).
	 */
	uint64_t pmm_lock_takings;
	uint64_t heap_lock_takings;
};

/* cpu_flags: stuck, and no timer interrupt taken since: its interrupts are masked. */
#define SYS_CPU_IRQS_MASKED (1u << 0)

_Static_assert(sizeof(struct sys_info) == 40 + 8 * 8 + 8 * 4 * 2 + 8 + 8 * 4 * 3 + 8 * 2, "abi");

#endif
