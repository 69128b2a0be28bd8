/*
 * trace_decoder: what turning events into text needs besides the events,
 * found once rather than on every line. The syscall names are durable aux
 * records (written at boot, never changed), so a table of them by number
 * is built when the decoder starts and stays right. A user event's
 * definition is the aux record the kernel wrote when the event was
 * registered (tag TTRACE_AUX_USER_EVENT, id UEVENT_AUX_ID(id, generation)):
 * it is looked up on the first event of that id and generation, parsed,
 * and kept, since a definition never changes under its id and generation.
 * A program's name is the record the kernel writes when it spawns it.
 *
 * Every reader that prints events (traced, the kernel's flight recorder,
 * the host tools) decodes through one of these, so they print the same
 * lines. Pure code: the caller gives the memory; lookups are the aux
 * buffer's lock-free reader. Not thread-safe: one decoder per thread.
 */
#ifndef SPOOR_COMMON_TRACE_DECODER_H
#define SPOOR_COMMON_TRACE_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/uevent.h"
#include "common/trace_header.h"

#define TTRACE_DECODER_SYSCALLS 256 /* syscall numbers the name table covers */
#define TTRACE_DECODER_COMMS	64  /* program names it keeps, by pid */
#define TTRACE_COMM_MAX		32  /* bytes of a program name, with its NUL */

/* One user event's definition, as the decoder keeps it. */
struct ttrace_uevent_slot {
	uint64_t key;	       /* UEVENT_AUX_ID(id, generation); 0: empty */
	uint8_t found;	       /* def holds its definition; else it was evicted */
	struct uevent_def def; /* valid when found */
};

/* A pid's program name, as the decoder keeps it. */
struct ttrace_comm {
	uint32_t pid;  /* 0: empty */
	uint8_t found; /* name holds it; else its spawn record was evicted */
	char name[TTRACE_COMM_MAX];
};

/* A stack frame to name: its address, whose code it is, and how it was found. */
struct ttrace_frame {
	uint64_t addr;
	const char *comm; /* the program's name, or "kernel" */
	bool kernel;
	bool ret; /* a return address: its call is the instruction before it */
};

struct ttrace_decoder {
	const struct ttrace_area *area;
	struct ttrace_comm comm[TTRACE_DECODER_COMMS];	   /* by pid % TTRACE_DECODER_COMMS */
	const char *syscall_name[TTRACE_DECODER_SYSCALLS]; /* into the durable aux; NULL: none */
	uint16_t syscall_len[TTRACE_DECODER_SYSCALLS];
	struct ttrace_uevent_slot *uevents; /* UEVENT_MAX of them, by id; NULL: print raw */
	/*
	 * Names a stack frame (trace_format.c): writes "function+0x12
	 * (file.c:40)" for addr, of the kernel or of program comm, into buf
	 * and returns true, or false to print it as hex. ret: addr is a
	 * return address (its call is the instruction before it). NULL (as
	 * ttrace_decoder_init() leaves it): hex. The host tools set it, and
	 * traced for kernel frames (servers/traced/kframes.h).
	 */
	bool (*symbolize)(void *ctx, const struct ttrace_frame *frame, char *buf, size_t size);
	void *symbolize_ctx;
};

/*
 * Starts d for area a: builds the syscall name table from a's durable
 * aux records. uevents (UEVENT_MAX slots, or NULL to print user events
 * undecoded) is emptied and becomes the decoder's cache of definitions.
 */
void ttrace_decoder_init(struct ttrace_decoder *d, const struct ttrace_area *a,
			 struct ttrace_uevent_slot *uevents);

/*
 * The program name of pid: from the aux record the kernel writes at every
 * spawn (tag PROC), found once and kept (pids are never reused), "kernel"
 * for pid 0, or "?" when that record was evicted. Bytes that would break
 * a line are '?'.
 */
const char *ttrace_decoder_comm(struct ttrace_decoder *d, uint32_t pid);

/*
 * The program name of thread tid into buf (NUL-terminated), from the aux
 * record the kernel writes at every thread's start (tag THREAD): true, or
 * false with "?" when that record was evicted. Not cached: a walk of the
 * aux ring each call. Bytes that would break a line are '?'.
 */
bool ttrace_decoder_thread(const struct ttrace_decoder *d, uint32_t tid, char *buf, size_t size);

/* The name of syscall nr (len bytes, no NUL in *len), or NULL if the aux has none. */
const char *ttrace_decoder_syscall(const struct ttrace_decoder *d, uint64_t nr, size_t *len);

/*
 * The definition of user event id at generation, or NULL when the decoder
 * has no cache, the id is out of range, or its aux record was evicted.
 */
const struct uevent_def *ttrace_decoder_uevent(struct ttrace_decoder *d, uint32_t id,
					       uint32_t generation);

#endif
