/*
 * stack: call stacks for trace events (abi/trace.h, CALL STACKS). The
 * kernel's frames are walked through the frame pointers every kernel file
 * keeps, within the current thread's kernel stack; the user's
 * through the thread's saved user registers and its frame pointers, read
 * with the user copy in its no-fault mode: a page that is not there ends
 * the walk instead of being faulted in, so a walk takes no lock, never
 * sleeps, and may run in an interrupt handler. Nothing outside user
 * memory is ever read for, or recorded as, a user frame.
 */
#ifndef SPOOR_TRACE_STACK_H
#define SPOOR_TRACE_STACK_H

#include <stdint.h>

#include "abi/trace.h"

struct trap_frame;

/* Where a walk starts. */
struct stack_start {
	uint64_t kernel_ip; /* the kernel's first frame, or 0 to start at kernel_fp's caller */
	uint64_t kernel_fp; /* a kernel frame pointer on the current stack, or 0: no kernel part */
	const struct trap_frame *user; /* the thread's user registers, or NULL: no user part */
};

/*
 * Walks the current thread's stack from s into frames (room:
 * TTRACE_STACK_FRAMES_MAX) and returns the stack word that describes
 * them. Any context; interrupts may be on or off.
 */
uint64_t stack_walk(const struct stack_start *s, uint64_t *frames);

/*
 * An event's words with its stack: data's nwords (at most
 * TTRACE_STACK_WORD) into out (room: TTRACE_EVENT_WORDS_MAX), zero padded,
 * then the stack word and the frames walked from s. Returns the words.
 */
uint8_t stack_event(uint64_t *out, const uint64_t *data, uint8_t nwords,
		    const struct stack_start *s);

/* The user registers of the current thread if it belongs to a process, else NULL. */
const struct trap_frame *stack_user_regs(void);

#endif
