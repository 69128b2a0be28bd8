/*
 * trace_stack: see trace_stack.h. A stack word is believed only when its
 * tag is right and its frames fit the words the continuations hold.
 */
#include "common/trace_stack.h"

#include "abi/trace.h"

bool ttrace_stack_get(const struct ttrace_record *rec, struct ttrace_stack *s)
{
	uint32_t words = TTRACE_HEAD_WORDS + rec->ncont * TTRACE_CONT_WORDS;

	if (rec->kind == TTRACE_KIND_user || !rec->ncont || words <= TTRACE_STACK_WORD) {
		return false;
	}
	uint64_t w = rec->data[TTRACE_STACK_WORD];

	if (!TTRACE_STACK_IS(w) ||
	    TTRACE_STACK_WORD + 1 + TTRACE_STACK_NKERNEL(w) + TTRACE_STACK_NUSER(w) > words) {
		return false;
	}
	*s = (struct ttrace_stack){
	    .nkernel = TTRACE_STACK_NKERNEL(w),
	    .nuser = TTRACE_STACK_NUSER(w),
	    .kernel_cut = w & TTRACE_STACK_KCUT,
	    .user_cut = w & TTRACE_STACK_UCUT,
	    .frames = &rec->data[TTRACE_STACK_WORD + 1],
	};
	return true;
}
