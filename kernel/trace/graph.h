/*
 * graph: the function-graph tracer's hooks (abi/trace_func.h, THE
 * GRAPH). While the graph is on, every traceable function's site calls
 * graph_trampoline, and a root's graph_root_trampoline
 * (arch/x86_64/fentry.S), which call graph_enter(). A call it records
 * has the return address into its caller swapped for graph_return, so
 * the function returns there, and graph_leave() gives the address back.
 *
 * Whose return stack a call goes on is decided by the stack its return
 * address is on, not by the thread the CPU runs: the IPC fast path makes
 * its partner the CPU's current thread (sched/switch.h) before the
 * caller's stack is left, and the calls under way there are the caller's.
 * A frame is found again by that address (its slot), so frames whose
 * stack was left for good are found dead and ended (abandoned) instead of
 * being returned to: a live frame's slot is always above the stack
 * pointer.
 */
#ifndef SPOOR_TRACE_GRAPH_H
#define SPOOR_TRACE_GRAPH_H

#include <stdint.h>

struct thread;

/*
 * Readies the graph's clock for graph_exit's nanoseconds, and sets the
 * depth past which calls are not recorded but counted (1 to
 * TTRACE_GRAPH_DEPTH): before the sites are patched.
 */
void graph_prepare(uint32_t depth);

/*
 * The trampolines' call at a function's entry: slot holds the return into
 * its caller, site is the function, root whether it is a root. Records
 * graph_entry and swaps *slot when the call belongs to the graph.
 * Interrupts off.
 */
void graph_enter(uint64_t *slot, uint64_t site, uint64_t root);

/*
 * graph_return's call when a recorded call returns: slot is where its
 * return address was. Records graph_exit and returns the address to go
 * back to. Interrupts off.
 */
uint64_t graph_leave(uint64_t *slot);

/*
 * Thread t has exited and this CPU has just switched away from it for
 * good: each call under way on its stack ends (exited), as t's events,
 * and nothing more of t is recorded. Before t's on_cpu clears (nobody
 * frees it meanwhile); interrupts off.
 */
void graph_thread_exit(struct thread *t);

/* Graph calls not recorded for want of room, every thread's (saturating at UINT32_MAX). */
uint32_t graph_overflowed(void);

#endif
