/*
 * Capabilities as user space sees them: slot numbers, kinds, rights, and
 * the well-known slots a program starts with.
 *
 * A process's capability table has CAP_SLOTS slots. A syscall that takes a
 * slot fails with:
 *   -EBADF      the slot is out of range or empty,
 *   -ECAPKIND   the slot holds a capability of another kind,
 *   -EACCES     the capability lacks a right the operation needs.
 * Copies (cap_copy, spawn, IPC transfer) can only keep or drop rights.
 */
#ifndef SPOOR_ABI_CAP_H
#define SPOOR_ABI_CAP_H

#include <stdint.h>

#define CAP_SLOTS 64

/* Kinds. */
#define CAP_KIND_NONE	       0
#define CAP_KIND_ENDPOINT      1
#define CAP_KIND_FRAME	       2 /* a memory object: map it, read and write it */
#define CAP_KIND_PROCESS       3 /* wait for it, kill it, start it */
#define CAP_KIND_CONSOLE       4 /* the serial console */
#define CAP_KIND_TRACE_READ    5 /* the trace header, rings and aux buffer */
#define CAP_KIND_TRACE_CONTROL 6 /* tracing mask, mode, clear */
#define CAP_KIND_UEVENT	       7 /* a user-defined trace event: write it (abi/uevent.h) */
#define CAP_KIND_IOPORT	       8 /* a range of I/O ports: read and write them (below) */

/* Rights: what a capability allows. Meaning depends on the kind. */
#define CAP_RIGHT_READ (1u << 0) /* frame: read, map; console, ioport: read; endpoint: recv */
#define CAP_RIGHT_WRITE                                                                            \
	(1u << 1)		  /* frame: write, map writable; console, ioport: write;           \
				     endpoint: call */
#define CAP_RIGHT_GRANT (1u << 2) /* may be copied to another process */
#define CAP_RIGHT_WAIT	(1u << 3) /* process: wait for its exit status */
#define CAP_RIGHT_KILL	(1u << 4) /* process: kill it */
#define CAP_RIGHT_POWER (1u << 5) /* console: power the machine off */
#define CAP_RIGHT_START (1u << 6) /* process: start it (SPAWN_STOPPED in abi/proc.h) */
#define CAP_RIGHTS_ALL	0x7fu

/* Well-known slots: where spawn's caller is expected to put these. */
#define CAP_SLOT_CONSOLE       0 /* every program: its console */
#define CAP_SLOT_NAMESERVER    1 /* reserved for the IPC name service */
#define CAP_SLOT_TRACE_READ    2 /* traced: trace memory */
#define CAP_SLOT_TRACE_CONTROL 3 /* traced: tracing control */
#define CAP_SLOT_SERVICE       4 /* a server: the endpoint it receives on */
#define CAP_SLOT_EXPORT_PORT   5 /* traced: the export channel's serial port (COM2), if any */
#define CAP_SLOT_EXPORT_WINDOW 6 /* traced: the export window (device memory), if any */
#define CAP_SLOT_FIRST_FREE    8 /* the kernel and spawn never fill slots below this unasked */

/*
 * I/O ports. A capability of kind CAP_KIND_IOPORT names ports base to
 * base + count - 1 of one device; user space has no I/O privilege of its
 * own (IOPL 0, no I/O bitmap), so an in or out instruction faults and
 * these are the only way to a port:
 *   ioport_read(slot, offset, buf, len)   reads len bytes, one at a time,
 *                                         from port base + offset (READ)
 *   ioport_write(slot, offset, buf, len)  writes them to it (WRITE)
 * They return len, or -EINVAL for an offset >= count, a len of 0 or above
 * IOPORT_XFER_MAX, -EFAULT for a buffer the caller cannot reach, and the
 * slot errors above. cap_identify gives count as the size.
 */
#define IOPORT_XFER_MAX 4096

struct cap_info {
	uint32_t kind;
	uint32_t rights;
	uint64_t size; /* frame, trace-read: bytes; process: pid; endpoint: badge; user event: id;
			  ioport: ports; else 0 */
};

_Static_assert(sizeof(struct cap_info) == 16, "abi");

#endif
