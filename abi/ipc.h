/*
 * IPC: synchronous endpoints, seL4/L4 style.
 *
 * A client calls an endpoint and blocks until a server that received the
 * message replies. A message is a label and up to IPC_WORDS words carried
 * in registers, plus, when the call passes a struct ipc_extra, a buffer of
 * up to IPC_BUF_MAX bytes (copied; both sides' buffers are checked) and
 * one capability (its rights can only shrink on the way).
 *
 * Registers (x86_64 `syscall`):
 *   in   rdi  endpoint slot (call, recv, reply_recv)
 *        rsi  message info: label | nwords << 32 (IPC_INFO())
 *        rdx  struct ipc_extra * or 0 for a register-only message
 *        r10 r8 r9 r12 r13 r14 r15 rbx   words 0..7
 *   out  rax  0 or -E*
 *        rsi  the received message's info
 *        rdi  the badge of the capability the caller used (recv side)
 *        r10 r8 r9 r12 r13 r14 r15 rbx   the received words
 *
 * Identity: a message received with a struct ipc_extra reports the pid
 * of the process that sent it (sender_pid), which the kernel fills in and
 * no sender can choose: with the badge (what the capability says the
 * caller may do) a server knows who calls without trusting its words.
 *
 * Rights: calling needs CAP_RIGHT_WRITE on the endpoint capability,
 * receiving CAP_RIGHT_READ. The holder of an unbadged endpoint capability
 * mints badged copies (endpoint_mint); a server tells its clients apart by
 * the badge recv returns. A server holds at most one reply at a time: the
 * caller of the last message it received.
 *
 * Failures: a call to an endpoint nobody can receive from (no capability
 * with the read right is left) fails with -EPIPE, and callers already
 * waiting on it are woken with -EPIPE; so are callers whose server thread
 * dies before replying. A reply to a caller that has gone (died, timed
 * out) is dropped without error. Receivers on an endpoint nobody can call
 * any more are woken with -EPIPE. Timeouts give -ETIMEDOUT.
 *
 * Register-only call and reply_recv take the fast path: the kernel
 * switches straight to a waiting partner that may run on this CPU.
 *
 * Signals: the kernel may signal an endpoint to wake its server without
 * a message of anyone's (the trace wake-up, abi/trace.h THE WAKE-UP). A
 * signal is received as a message from the kernel: label
 * IPC_SIGNAL_LABEL, one word (the bits signalled), badge 0, sender_pid 0
 * (no process has pid 0, so no caller can forge one: a server that wants
 * to tell signals apart receives with a struct ipc_extra), no buffer, no
 * capability, and no reply owed. It goes to the oldest receiver waiting;
 * with none, it stays pending on the endpoint, and the next receive
 * takes it at once, before any queued caller. Signals that come while
 * one is pending join it (their bits OR-ed): a receiver learns that
 * something was signalled since its last one, never how often, and no
 * signal is lost between a server's last look and its next receive.
 */
#ifndef SPOOR_ABI_IPC_H
#define SPOOR_ABI_IPC_H

#include <stdint.h>

#define IPC_WORDS   8
#define IPC_BUF_MAX 4096
#define IPC_NO_CAP  0xffffffffu

#define IPC_INFO(label, nwords) ((uint64_t)(uint32_t)(label) | (uint64_t)(nwords) << 32)
#define IPC_INFO_LABEL(info)	((uint32_t)(info))
#define IPC_INFO_WORDS(info)	((uint32_t)((info) >> 32) & 0xf)
#define IPC_INFO_RESERVED	0xfffffff000000000ull /* must be zero */

#define IPC_SIGNAL_LABEL 0xffffffffu /* a signal's label (above); from sender_pid 0 only */

/* The optional part of a message; fields marked [out] are written back. */
struct ipc_extra {
	uint64_t timeout_ns;	  /* TIMEOUT_FOREVER (abi/syscall.h) or a limit; 0 polls */
	uint64_t send_buf;	  /* bytes to send, or 0 */
	uint32_t send_len;	  /* <= IPC_BUF_MAX */
	uint32_t send_cap;	  /* slot of a capability to send, or IPC_NO_CAP */
	uint32_t send_cap_rights; /* the sent copy keeps only these rights */
	uint32_t recv_max;	  /* room at recv_buf; a longer message fails with -E2BIG */
	uint64_t recv_buf;	  /* where a received buffer goes, or 0 */
	uint32_t recv_len;	  /* [out] bytes received */
	uint32_t recv_cap;	  /* [out] slot the received capability went to, or IPC_NO_CAP */
	uint32_t sender_pid;	  /* [out] the pid of the process that sent the message */
	uint32_t reserved;	  /* zero */
};

_Static_assert(sizeof(struct ipc_extra) == 56, "abi");
_Static_assert(__builtin_offsetof(struct ipc_extra, sender_pid) == 48, "abi");
_Static_assert(__builtin_offsetof(struct ipc_extra, recv_len) == 40, "abi");

#endif
