/*
 * kind_words: word 1's kind part for each kind, the table the straight
 * path (tracepoint.h) reads as a memory operand. It is pure, so the host
 * tests and the benchmark link the kernel's own table when they run the
 * straight path (KERNEL_PURE in the Makefile).
 */
#include "trace/ktrace.h"

const uint64_t ttrace_kind_words[TTRACE_KIND_LIMIT] = {
#define TTRACE_KIND(id, name, cat, args) [id] = TTRACE_KIND_WORD(id),
#include "abi/trace_kinds.def"
#undef TTRACE_KIND
};
