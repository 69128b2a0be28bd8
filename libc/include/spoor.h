/*
 * spoor.h: Spoor's own system interface for user programs. One typed
 * wrapper per system call in abi/syscalls.def, named sys_<name>, plus
 * thread_spawn() and thread_join() over the raw thread calls.
 *
 * Wrappers return what the kernel returned: >= 0 on success, -E* (abi/
 * errno.def) on failure. They never touch errno; that is for the C
 * functions that the standard says set it. Each wrapper is inline: the
 * `syscall` instruction with the number in rax and the arguments in rdi,
 * rsi, rdx, r10, r8, r9; the kernel clobbers only rcx and r11.
 *
 * Two compile-time checks keep this file in step with syscalls.def: each
 * wrapper's argument count must match the list's, and every entry of the
 * list must have a wrapper here.
 */
#ifndef SPOOR_LIBC_SPOOR_H
#define SPOOR_LIBC_SPOOR_H

#include <stddef.h>
#include <stdint.h>

#include "abi/cap.h"
#include "abi/errno.h"
#include "abi/ipc.h"
#include "abi/mem.h"
#include "abi/proc.h"
#include "abi/syscall.h"
#include "abi/trace_func.h"
#include "abi/trace_probe.h"

/* SYS_NARGS_<name>: each call's argument count, as syscalls.def gives it. */
enum {
#define SYSCALL(nr, name, nargs) SYS_NARGS_##name = nargs,
#include "abi/syscalls.def"
#undef SYSCALL
};

static inline long __syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	/* "memory": the kernel reads and writes user buffers behind the compiler's back. */
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* __syscallN(name, args...): SYS_<name> with N arguments, N checked against syscalls.def. */
#define __SYSCALL(name, n, a1, a2, a3, a4, a5, a6)                                                 \
	({                                                                                         \
		_Static_assert(SYS_NARGS_##name == (n),                                            \
			       "syscalls.def gives " #name " another argument count");             \
		__syscall6(SYS_##name, (long)(a1), (long)(a2), (long)(a3), (long)(a4), (long)(a5), \
			   (long)(a6));                                                            \
	})
#define __syscall0(name)		 __SYSCALL(name, 0, 0, 0, 0, 0, 0, 0)
#define __syscall1(name, a1)		 __SYSCALL(name, 1, a1, 0, 0, 0, 0, 0)
#define __syscall2(name, a1, a2)	 __SYSCALL(name, 2, a1, a2, 0, 0, 0, 0)
#define __syscall3(name, a1, a2, a3)	 __SYSCALL(name, 3, a1, a2, a3, 0, 0, 0)
#define __syscall4(name, a1, a2, a3, a4) __SYSCALL(name, 4, a1, a2, a3, a4, 0, 0)

/* Ends the whole process with status (0..255 by convention); never returns. */
static inline __attribute__((noreturn)) void sys_exit(int status)
{
	__syscall1(exit, status);
	__builtin_trap();
}

/* Gives the CPU to another ready thread, if there is one. Returns 0. */
static inline long sys_yield(void)
{
	return __syscall0(yield);
}

/* Nanoseconds since boot. */
static inline long sys_clock_ns(void)
{
	return __syscall0(clock_ns);
}

/* Sleeps for at least ns nanoseconds. Returns 0. */
static inline long sys_sleep_ns(uint64_t ns)
{
	return __syscall1(sleep_ns, ns);
}

/*
 * Starts a thread of this process at entry with rsp = stack_top and rdi =
 * arg; returns its tid. entry is reached by a jump, not a call: a C
 * function there would see its stack misaligned, so entry is normally an
 * assembly trampoline. thread_spawn() below does all of this.
 */
static inline long sys_thread_create(void (*entry)(void *arg), void *stack_top, void *arg)
{
	return __syscall3(thread_create, entry, stack_top, arg);
}

/* Ends the calling thread with status, kept for thread_join; never returns. */
static inline __attribute__((noreturn)) void sys_thread_exit(int64_t status)
{
	__syscall1(thread_exit, status);
	__builtin_trap();
}

/* Waits for thread tid of this process to end; stores its status if status is not NULL. */
static inline long sys_thread_join(int tid, int64_t *status)
{
	return __syscall2(thread_join, tid, status);
}

/*
 * Makes thread tid unjoinable: the kernel frees its record as soon as it
 * has ended (abi/proc.h, PROC_THREADS_MAX). Its stack stays the caller's
 * to free. 0, -ENOENT, -EINVAL (already detached, or being joined).
 */
static inline long sys_thread_detach(int tid)
{
	return __syscall1(thread_detach, tid);
}

/* Starts a program (struct spawn_args in abi/proc.h); returns the slot of its process cap. */
static inline long sys_spawn(const struct spawn_args *args)
{
	return __syscall1(spawn, args);
}

/*
 * Waits up to timeout_ns (0 polls, TIMEOUT_FOREVER has no limit) for the
 * process in slot to end: 0 and its status, or -ETIMEDOUT.
 */
static inline long sys_wait(int slot, int64_t *status, uint64_t timeout_ns)
{
	return __syscall3(wait, slot, status, timeout_ns);
}

/*
 * Lets the process in slot, spawned SPAWN_STOPPED, run (CAP_RIGHT_START):
 * 0, or -EINVAL if it was started already or was killed before.
 */
static inline long sys_process_start(int slot)
{
	return __syscall1(process_start, slot);
}

/* Kills the process in slot (CAP_RIGHT_KILL); its status becomes EXIT_KILLED. */
static inline long sys_kill(int slot)
{
	return __syscall1(kill, slot);
}

/*
 * Kills process pid, which this process spawned, directly or through the
 * processes it spawned; its status becomes EXIT_KILLED. 0, -ENOENT (no
 * such live process), -EPERM (not below the caller).
 */
static inline long sys_kill_pid(uint32_t pid)
{
	return __syscall1(kill_pid, pid);
}

/* Copies the capability in slot, keeping only rights; returns the new slot. */
static inline long sys_cap_copy(int slot, uint32_t rights)
{
	return __syscall2(cap_copy, slot, rights);
}

/* Empties slot. */
static inline long sys_cap_delete(int slot)
{
	return __syscall1(cap_delete, slot);
}

/* Describes the capability in slot. */
static inline long sys_cap_identify(int slot, struct cap_info *info)
{
	return __syscall2(cap_identify, slot, info);
}

/*
 * Maps len bytes (rounded up to pages) of zeroed, demand-paged memory with
 * prot (PROT_*), at addr or, for addr NULL, where the kernel chooses.
 * Returns the address; user addresses are below 2^47, so never negative.
 */
/*
 * The kernel function holding kernel text address addr: its name into
 * buf (size bytes, NUL included), and addr's offset into it returned;
 * -ENOENT for an address no function holds, -E2BIG for a short buf.
 */
static inline long sys_ksym(uint64_t addr, char *buf, size_t size)
{
	return __syscall3(ksym, addr, buf, size);
}

static inline long sys_mem_map_anon(void *addr, size_t len, uint32_t prot)
{
	return __syscall3(mem_map_anon, addr, len, prot);
}

/*
 * Commits the pages of [addr, addr + len), which must be mapped writable:
 * each gets its own frame now, so touching it later cannot fault for
 * memory. 0, -EFAULT, or -ENOMEM (the tree's limit, or no memory left).
 */
static inline long sys_mem_commit(void *addr, size_t len)
{
	return __syscall2(mem_commit, addr, len);
}

/* Unmaps the pages of [addr, addr + len). */
static inline long sys_mem_unmap(void *addr, size_t len)
{
	return __syscall2(mem_unmap, addr, len);
}

/*
 * Changes the protection of the pages of [addr, addr + len) to prot.
 * PROT_NONE pages fault on any access but keep their data for a later
 * protect. -EACCES beyond what a frame mapping's capability allows.
 */
static inline long sys_mem_protect(void *addr, size_t len, uint32_t prot)
{
	return __syscall3(mem_protect, addr, len, prot);
}

/*
 * Maps the frame object in slot at addr (or where the kernel chooses);
 * returns the address. Any mapping needs CAP_RIGHT_READ, a PROT_WRITE one
 * CAP_RIGHT_WRITE too: -EACCES otherwise.
 */
static inline long sys_mem_map_frame(int slot, void *addr, uint32_t prot)
{
	return __syscall3(mem_map_frame, slot, addr, prot);
}

/* Maps a copy-on-write copy of [addr, addr + len); returns the copy's address. */
static inline long sys_mem_cow_copy(const void *addr, size_t len)
{
	return __syscall2(mem_cow_copy, addr, len);
}

/* Creates a zeroed frame object of size bytes; returns its slot. */
static inline long sys_frame_create(size_t size)
{
	return __syscall1(frame_create, size);
}

/* Copies len bytes at offset of the frame object in slot into buf. */
static inline long sys_frame_read(int slot, uint64_t offset, void *buf, size_t len)
{
	return __syscall4(frame_read, slot, offset, buf, len);
}

/* Copies len bytes of buf to offset of the frame object in slot. */
static inline long sys_frame_write(int slot, uint64_t offset, const void *buf, size_t len)
{
	return __syscall4(frame_write, slot, offset, buf, len);
}

/* Writes len bytes to the console in slot; returns how many it wrote. */
static inline long sys_console_write(int slot, const void *buf, size_t len)
{
	return __syscall3(console_write, slot, buf, len);
}

/* Reads up to len bytes from the console in slot, waiting up to timeout_ns; 0 on timeout. */
static inline long sys_console_read(int slot, void *buf, size_t len, uint64_t timeout_ns)
{
	return __syscall4(console_read, slot, buf, len, timeout_ns);
}

/* Reads len bytes, one at a time, from port offset of the I/O-port range in slot (abi/cap.h). */
static inline long sys_ioport_read(int slot, uint32_t offset, void *buf, size_t len)
{
	return __syscall4(ioport_read, slot, offset, buf, len);
}

/* Writes len bytes, one at a time, to port offset of the I/O-port range in slot. */
static inline long sys_ioport_write(int slot, uint32_t offset, const void *buf, size_t len)
{
	return __syscall4(ioport_write, slot, offset, buf, len);
}

/* Fills in the machine-wide counters of struct sys_info. */
static inline long sys_sys_info(struct sys_info *info)
{
	return __syscall1(sys_info, info);
}

/* Describes up to max threads of the system; returns how many entries it filled. */
static inline long sys_thread_list(struct thread_info *out, size_t max)
{
	return __syscall2(thread_list, out, max);
}

/* Powers the machine off; slot is a console capability with CAP_RIGHT_POWER. */
static inline long sys_poweroff(int slot)
{
	return __syscall1(poweroff, slot);
}

/* The calling process's pid. */
static inline long sys_getpid(void)
{
	return __syscall0(getpid);
}

/* A new unbadged endpoint with every right; returns its slot. */
static inline long sys_endpoint_create(void)
{
	return __syscall0(endpoint_create);
}

/* A badged copy of an unbadged endpoint, keeping only rights; returns its slot. */
static inline long sys_endpoint_mint(int slot, uint64_t badge, uint32_t rights)
{
	return __syscall3(endpoint_mint, slot, badge, rights);
}

/* Fills up to max records about the boot programs; returns how many. */
static inline long sys_program_list(struct program_info *out, size_t max)
{
	return __syscall2(program_list, out, max);
}

/* Maps trace memory (TTRACE_MAP_*, abi/trace.h) at addr or anywhere for NULL. */
static inline long sys_trace_map(int slot, uint32_t what, void *addr)
{
	return __syscall3(trace_map, slot, what, addr);
}

/* Changes tracing (TTRACE_OP_*); returns the category mask in force. */
static inline long sys_trace_control(int slot, uint32_t op, uint64_t arg)
{
	return __syscall3(trace_control, slot, op, arg);
}

/*
 * Arms the trace wake-up (abi/trace.h, THE WAKE-UP): the endpoint in
 * endpoint_slot, which the caller receives on, is signalled once some
 * CPU's ring holds more than watermark entries past the reader's tail.
 */
static inline long sys_trace_wake(int control_slot, int endpoint_slot, uint64_t watermark)
{
	return __syscall3(trace_wake, control_slot, endpoint_slot, watermark);
}

/*
 * Sets kind's filter to the n instructions at insns, or removes it for
 * n = 0 (abi/trace_pred.h); traced's, with trace control. Returns 0.
 */
static inline long sys_trace_filter(int slot, uint32_t kind, const void *insns, uint32_t n)
{
	return __syscall4(trace_filter, slot, kind, insns, n);
}

/*
 * Sets kind's trigger to *t, or removes it (action TTRACE_TRIG_NONE), for
 * op TTRACE_TRIG_SET; fills *t with kind's for TTRACE_TRIG_GET
 * (abi/trace_pred.h, TRIGGERS); traced's, with trace control. Returns 0.
 */
static inline long sys_trace_trigger(int slot, uint32_t op, uint32_t kind, void *t)
{
	return __syscall4(trace_trigger, slot, op, kind, t);
}

/*
 * Copies kind's filter or trigger note (abi/trace_pred.h, NOTES) from
 * buf (TTRACE_NOTE_SET_*) or to it (GET_*), TTRACE_NOTE_BYTES bytes;
 * traced's, with trace control. Returns 0.
 */
static inline long sys_trace_note(int slot, uint32_t op, uint32_t kind, void *buf)
{
	return __syscall4(trace_note, slot, op, kind, buf);
}

/*
 * What the kernel says of its function at index (abi/trace_func.h): its
 * name, whether it is traceable and traced, or why not. -ENOENT past the
 * last.
 */
static inline long sys_func_info(uint32_t index, struct ttrace_func_info *info)
{
	return __syscall2(func_info, index, info);
}

/*
 * Traces the kernel functions the patterns of list match (TTRACE_FUNC_ON),
 * or stops (TTRACE_FUNC_OFF; len 0: all): abi/trace_func.h. Returns the
 * number of functions traced afterwards.
 */
static inline long sys_trace_func(int slot, uint32_t op, const char *list, size_t len)
{
	return __syscall4(trace_func, slot, op, list, len);
}

/*
 * What the kernel says of its probe slot index (abi/trace_probe.h): addr
 * 0 for a free one; -ENOENT past the last.
 */
static inline long sys_probe_info(uint32_t index, struct ttrace_probe_info *info)
{
	return __syscall2(probe_info, index, info);
}

/*
 * Sets (TTRACE_PROBE_ON) or removes (TTRACE_PROBE_OFF) a kernel probe:
 * abi/trace_probe.h; traced's, with trace control. Returns the number of
 * probes set afterwards; on -EINVAL, spec->why says why.
 */
static inline long sys_trace_probe(int slot, uint32_t op, struct ttrace_probe_spec *spec)
{
	return __syscall3(trace_probe, slot, op, spec);
}

/* Registers a user event (abi/uevent.h): traced's, with trace control. Returns a slot. */
static inline long sys_uevent_register(int control_slot, const char *desc, size_t len)
{
	return __syscall3(uevent_register, control_slot, desc, len);
}

/* Writes a user event's payload; slot is its write index (abi/uevent.h). */
static inline long sys_uevent_write(long slot, const void *payload, size_t len)
{
	return __syscall3(uevent_write, slot, payload, len);
}

/* Controls user events (UEVENT_OP_*): traced's, with trace control. */
static inline long sys_uevent_control(int control_slot, uint32_t op, uint64_t id, void *arg)
{
	return __syscall4(uevent_control, control_slot, op, id, arg);
}

/* Emits n test_tick events (abi/trace.h); returns how many the test category let through. */
static inline long sys_trace_test(uint64_t n)
{
	return __syscall1(trace_test, n);
}

/* Pins the calling thread to cpu, or lets it run anywhere again with -1. */
static inline long sys_thread_set_cpu(int cpu)
{
	return __syscall1(thread_set_cpu, cpu);
}

/*
 * An IPC message in registers (abi/ipc.h): on the way in, info and the
 * words to send; on success, the message received (and its badge).
 */
struct ipc_regs {
	uint64_t info;
	uint64_t badge;
	uint64_t words[IPC_WORDS];
};

static inline long __ipc(long nr, long slot, struct ipc_regs *m, struct ipc_extra *x)
{
	register uint64_t r10 __asm__("r10") = m->words[0];
	register uint64_t r8 __asm__("r8") = m->words[1];
	register uint64_t r9 __asm__("r9") = m->words[2];
	register uint64_t r12 __asm__("r12") = m->words[3];
	register uint64_t r13 __asm__("r13") = m->words[4];
	register uint64_t r14 __asm__("r14") = m->words[5];
	register uint64_t r15 __asm__("r15") = m->words[6];
	register uint64_t rbx __asm__("rbx") = m->words[7];
	uint64_t rdi = (uint64_t)slot;
	uint64_t rsi = m->info;
	long ret = nr;

	__asm__ volatile("syscall"
			 : "+a"(ret), "+D"(rdi), "+S"(rsi), "+r"(r10), "+r"(r8), "+r"(r9),
			   "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15), "+r"(rbx)
			 : "d"(x)
			 : "rcx", "r11", "memory");
	if (ret == 0) {
		m->info = rsi;
		m->badge = rdi;
		m->words[0] = r10;
		m->words[1] = r8;
		m->words[2] = r9;
		m->words[3] = r12;
		m->words[4] = r13;
		m->words[5] = r14;
		m->words[6] = r15;
		m->words[7] = rbx;
	}
	return ret;
}

#define __IPC(name, slot, m, x)                                                                    \
	({                                                                                         \
		_Static_assert(SYS_NARGS_##name == 3, #name " takes slot, info and extra");        \
		__ipc(SYS_##name, (slot), (m), (x));                                               \
	})

/* Calls the endpoint in slot and waits for the reply, which replaces *m. x may be NULL. */
static inline long sys_ipc_call(int slot, struct ipc_regs *m, struct ipc_extra *x)
{
	return __IPC(ipc_call, slot, m, x);
}

/* Waits for a message on the endpoint in slot; it lands in *m. */
static inline long sys_ipc_recv(int slot, struct ipc_regs *m, struct ipc_extra *x)
{
	m->info = 0;
	return __IPC(ipc_recv, slot, m, x);
}

/* Replies to the caller of the last message received. */
static inline long sys_ipc_reply(struct ipc_regs *m, struct ipc_extra *x)
{
	return __IPC(ipc_reply, 0, m, x);
}

/* Replies, then waits for the next message on slot, which replaces *m. */
static inline long sys_ipc_reply_recv(int slot, struct ipc_regs *m, struct ipc_extra *x)
{
	return __IPC(ipc_reply_recv, slot, m, x);
}

/*
 * Asks init's name service for the server called name; returns the slot of
 * a capability to call it, -ENOENT if there is none, or another -E*.
 */
long lookup(const char *name);

/* Every call in syscalls.def has its wrapper above: a missing one fails to compile here. */
#define SYSCALL(nr, name, nargs) _Static_assert(sizeof(&sys_##name) != 0, #name);
#include "abi/syscalls.def"
#undef SYSCALL

/*
 * Starts fn(arg) in a new thread of this process on a stack of stack_size
 * bytes (rounded up to pages, 0 for a default of 64 KiB) with a guard page
 * below it. fn's return value becomes the thread's exit status. Returns
 * the tid, or -E*: -ENOMEM for a stack_size too large or no memory for
 * the thread's record, else what mapping the stack or thread_create
 * returned. Thread-safe.
 */
int thread_spawn(int (*fn)(void *arg), void *arg, size_t stack_size);

/*
 * Waits for thread tid to end, stores its exit status when status is not
 * NULL, and frees the stack thread_spawn gave it. Returns 0 or -E* from
 * thread_join; a thread is joined once. Blocks.
 */
int thread_join(int tid, int64_t *status);

#endif
