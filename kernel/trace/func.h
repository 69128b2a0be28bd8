/*
 * func: the function tracer (abi/trace_func.h). Each kernel function
 * compiled with the entry NOP has a site, listed by the linker between
 * _func_sites_start and _func_sites_end; func_trace_set() rewrites the
 * sites its patterns match into calls of the trampoline
 * (arch/x86_64/fentry.S), or back into the NOP, with every other CPU
 * stopped (smp_stop_others()), as static_branches_set() rewrites the
 * tracepoints. The trampoline saves the registers a call may change,
 * masks interrupts and calls func_trace_hit(), whose tracepoint records
 * func_entry while the category func is on (trace/tracepoint.h: the
 * straight path, or the slow path while an extra is on).
 *
 * Nothing the trampoline runs may itself be traced: the files it runs
 * through are compiled without the NOP (the Makefile's FUNC_NOTRACE_*),
 * one function of another file is marked notrace below, and a recursion
 * guard per CPU (func_guard.h) counts what still comes back in
 * (RECURSION).
 */
#ifndef SPOOR_TRACE_FUNC_H
#define SPOOR_TRACE_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace_func.h"

/* A function of a traced file that the function tracer must never patch (it has no NOP). */
#define notrace __attribute__((no_instrument_function))

/*
 * TTRACE_FUNC_ON or TTRACE_FUNC_OFF for the patterns of list (len bytes,
 * separated by spaces; OFF without any: every function), or
 * TTRACE_FUNC_GRAPH_ON with the graph's roots (and its depth in the op's
 * upper bits), TTRACE_FUNC_GRAPH_OFF without any (graph.h). Returns the number of functions traced
 * (the graph's roots) afterwards, or -EINVAL for a bad pattern or op, -ENOENT for an ON pattern
 * that matches no traceable function, -EBUSY for an ON of one tracer while the other has functions,
 * -ECPUSTUCK when a CPU did not stop; each changes nothing. Thread context, interrupts on, no
 * spinlock held (smp_stop_others()); may sleep.
 */
int func_trace_set(uint32_t op, const char *list, size_t len);

/*
 * What *info says of the kernel's function at index i (abi/trace_func.h,
 * struct ttrace_func_info): 0, or -ENOENT past the last. May sleep.
 */
int func_trace_info(uint32_t i, struct ttrace_func_info *info);

/*
 * Whether the kernel's function at symbol index i has an entry NOP: it
 * may be traced (and probed, trace/probe.h). May sleep.
 */
bool func_trace_has_site(uint32_t i);

/*
 * The trampoline's call at a traced function's entry: site its NOP (the
 * function's address), caller the return address into its caller.
 * Interrupts off.
 */
void func_trace_hit(uint64_t site, uint64_t caller);

#endif
