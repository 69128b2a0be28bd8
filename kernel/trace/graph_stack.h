/*
 * graph_stack: a thread's return stack for the function-graph tracer
 * (graph.h), kept in its struct thread. Only the CPU running the thread,
 * interrupts masked, reads and writes it: graph.c's hooks.
 */
#ifndef SPOOR_TRACE_GRAPH_STACK_H
#define SPOOR_TRACE_GRAPH_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace_func.h"

/* A call of the graph under way: its return address swapped for graph_return's. */
struct graph_frame {
	uint64_t slot;	/* where on the thread's kernel stack its return address is */
	uint64_t ret;	/* the return address that was there */
	uint64_t func;	/* the function's address (its site) */
	uint64_t start; /* the TSC at its entry */
};

struct graph_stack {
	uint32_t depth; /* frames under way, f[0] the oldest */
	bool closed;	/* the thread has exited: nothing more is recorded */
	struct graph_frame f[TTRACE_GRAPH_DEPTH];
};

#endif
