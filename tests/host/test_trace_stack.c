/*
 * The call stack in an event's continuations (abi/trace.h CALL STACKS)
 * as common/trace_stack.c takes it apart, and as the event line shows it:
 * whole, cut, and not believed when the record is not one.
 */
#include <string.h>

#include "abi/trace.h"
#include "common/trace_stack.h"
#include "test.h"

/* A mem_pf with a stack of nk + nu frames in ncont continuations. */
static void record(struct ttrace_record *r, uint32_t nk, uint32_t nu, uint64_t cut)
{
	memset(r, 0, sizeof(*r));
	r->kind = TTRACE_KIND_mem_pf;
	r->ncont = (uint8_t)(TTRACE_EVENT_SLOTS(TTRACE_STACK_WORD + 1 + nk + nu) - 1);
	r->data[TTRACE_STACK_WORD] = TTRACE_STACK_MAKE(nk, nu, cut);
	for (uint32_t i = 0; i < nk + nu; i++) {
		r->data[TTRACE_STACK_WORD + 1 + i] =
		    i < nk ? 0xffffffff80100000ull + i : 0x401000 + i;
	}
}

TEST(trace_stack_whole_and_cut)
{
	struct ttrace_record r;
	struct ttrace_stack s;

	record(&r, 2, 3, 0);
	CHECK(ttrace_stack_get(&r, &s), "a stack");
	CHECK_EQ_UINT(s.nkernel, 2, "kernel frames");
	CHECK_EQ_UINT(s.nuser, 3, "user frames");
	CHECK(!s.kernel_cut && !s.user_cut, "whole");
	CHECK_EQ_UINT(s.frames[2], 0x401002, "the user's first frame after the kernel's");
	record(&r, 0, TTRACE_STACK_FRAMES_MAX, TTRACE_STACK_UCUT);
	CHECK(ttrace_stack_get(&r, &s) && s.user_cut && s.nuser == TTRACE_STACK_FRAMES_MAX,
	      "the most frames, cut");
}

TEST(trace_stack_refused_when_not_one)
{
	struct ttrace_record r;
	struct ttrace_stack s;

	record(&r, 1, 1, 0);
	r.ncont = 0;
	CHECK(!ttrace_stack_get(&r, &s), "no continuations: no stack");
	record(&r, 1, 1, 0);
	r.kind = TTRACE_KIND_user;
	CHECK(!ttrace_stack_get(&r, &s), "a user event's words are its own");
	record(&r, 1, 1, 0);
	r.data[TTRACE_STACK_WORD] ^= 1ull << 60;
	CHECK(!ttrace_stack_get(&r, &s), "a wrong tag");
	record(&r, 1, 1, 0);
	r.data[TTRACE_STACK_WORD] =
	    TTRACE_STACK_MAKE(1, 9, 0); /* more than one continuation holds */
	CHECK(!ttrace_stack_get(&r, &s), "frames past the continuations");
}
