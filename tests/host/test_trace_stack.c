/*
 * The call stack in an event's continuations (abi/trace.h CALL STACKS)
 * as common/trace_stack.c takes it apart, and as the event line shows it:
 * whole, cut, and not believed when the record is not one. The stack
 * word is written out here bit by bit, not with the TTRACE_STACK_MAKE()
 * that the kernel writes and the reader's macros mirror: a layout wrong
 * in both would agree with itself.
 */
#include <stdbool.h>
#include <string.h>

#include "abi/trace.h"
#include "common/trace_stack.h"
#include "test.h"

/* Where abi/trace.h puts the stack word: the first word after the head's five. */
#define STACK_AT 5

/* The stack word: tag "ST" in bits 48-63, user cut bit 17, kernel cut bit 16, nuser, nkernel. */
static uint64_t stack_word(uint32_t nk, uint32_t nu, bool kernel_cut, bool user_cut)
{
	return 0x5354ull << 48 | (uint64_t)user_cut << 17 | (uint64_t)kernel_cut << 16 |
	       (uint64_t)(nu & 0xff) << 8 | (nk & 0xff);
}

/* A mem_pf with a stack of nk + nu frames in ncont continuations. */
static void record(struct ttrace_record *r, uint32_t nk, uint32_t nu, bool kernel_cut,
		   bool user_cut)
{
	memset(r, 0, sizeof(*r));
	r->kind = TTRACE_KIND_mem_pf;
	r->ncont = (uint8_t)(TTRACE_EVENT_SLOTS(STACK_AT + 1 + nk + nu) - 1);
	r->data[STACK_AT] = stack_word(nk, nu, kernel_cut, user_cut);
	for (uint32_t i = 0; i < nk + nu; i++) {
		r->data[STACK_AT + 1 + i] = i < nk ? 0xffffffff80100000ull + i : 0x401000 + i;
	}
}

TEST(trace_stack_whole_and_cut)
{
	struct ttrace_record r;
	struct ttrace_stack s;

	record(&r, 2, 3, false, false);
	CHECK(ttrace_stack_get(&r, &s), "a stack");
	CHECK_EQ_UINT(s.nkernel, 2, "kernel frames");
	CHECK_EQ_UINT(s.nuser, 3, "user frames");
	CHECK(!s.kernel_cut && !s.user_cut, "whole");
	CHECK_EQ_UINT(s.frames[2], 0x401002, "the user's first frame after the kernel's");
	record(&r, 0, TTRACE_STACK_FRAMES_MAX, false, true);
	CHECK(ttrace_stack_get(&r, &s) && s.user_cut && !s.kernel_cut &&
		  s.nuser == TTRACE_STACK_FRAMES_MAX,
	      "the most frames, the user's cut");
	record(&r, 4, 0, true, false);
	CHECK(ttrace_stack_get(&r, &s) && s.kernel_cut && !s.user_cut && s.nkernel == 4,
	      "the kernel's cut");
}

/* The kernel's writer makes the word as the layout says. */
TEST(trace_stack_word_as_written)
{
	CHECK_EQ_UINT(TTRACE_STACK_MAKE(2, 3, 0), stack_word(2, 3, false, false), "whole");
	CHECK_EQ_UINT(TTRACE_STACK_MAKE(0, 3, TTRACE_STACK_UCUT), stack_word(0, 3, false, true),
		      "the user's cut");
	CHECK_EQ_UINT(TTRACE_STACK_MAKE(1, 7, TTRACE_STACK_KCUT | TTRACE_STACK_UCUT),
		      stack_word(1, 7, true, true), "both cut");
	CHECK_EQ_UINT(STACK_AT, TTRACE_STACK_WORD, "where the word is");
}

TEST(trace_stack_refused_when_not_one)
{
	struct ttrace_record r;
	struct ttrace_stack s;

	record(&r, 1, 1, false, false);
	r.ncont = 0;
	CHECK(!ttrace_stack_get(&r, &s), "no continuations: no stack");
	record(&r, 1, 1, false, false);
	r.kind = TTRACE_KIND_user;
	CHECK(!ttrace_stack_get(&r, &s), "a user event's words are its own");
	record(&r, 1, 1, false, false);
	r.data[STACK_AT] ^= 1ull << 60;
	CHECK(!ttrace_stack_get(&r, &s), "a wrong tag");
	record(&r, 1, 1, false, false);
	r.data[STACK_AT] = stack_word(1, 9, false, false); /* more than one continuation holds */
	CHECK(!ttrace_stack_get(&r, &s), "frames past the continuations");
}
