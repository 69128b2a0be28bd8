/*
 * trace_stack: the call stack an event carries in its continuations
 * (abi/trace.h CALL STACKS), as every reader takes it apart: the kernel's
 * flight recorder and echo, traced's text dumps, spoor-trace. Pure code.
 */
#ifndef SPOOR_COMMON_TRACE_STACK_H
#define SPOOR_COMMON_TRACE_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_ring.h"

struct ttrace_stack {
	uint32_t nkernel;	/* frames[0..nkernel): the kernel's, innermost first */
	uint32_t nuser;		/* frames[nkernel..nkernel + nuser): the user's */
	bool kernel_cut;	/* the kernel's frames went on past these */
	bool user_cut;		/* the user's walk stopped before its end */
	const uint64_t *frames; /* into the record's data */
};

/*
 * The stack rec carries: true with *s filled, or false for an event
 * without one (or whose stack word is not one: a corrupt record).
 */
bool ttrace_stack_get(const struct ttrace_record *rec, struct ttrace_stack *s);

#endif
