/*
 * func_guard: the function tracer's recursion guard, one per CPU, that
 * trace func's handler (func.c) and the graph's (graph.c) share. A
 * handler holds it while it records: an entry or exit that the recording
 * itself reaches on this CPU (an NMI's, or the echo's console output
 * while ttrace.echo has func) finds it held and is counted as missed
 * instead of recursing. Interrupts are masked while it is held, so only
 * an NMI comes in between, and it leaves the guard as it found it.
 */
#ifndef SPOOR_TRACE_FUNC_GUARD_H
#define SPOOR_TRACE_FUNC_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/percpu.h"

extern uint8_t func_guard_busy[MAX_CPUS]; /* 1 while that CPU records */
extern uint64_t func_guard_missed;	  /* [a] what the guard turned away, every CPU's */

/* Counts n events a held guard kept from being recorded. */
static inline void func_guard_miss(uint64_t n)
{
	__atomic_add_fetch(&func_guard_missed, n, __ATOMIC_RELAXED);
}

/* Takes this CPU's guard, or says false when it is held: the caller counts what it misses. */
static inline bool func_guard_take(uint32_t cpu)
{
	if (__atomic_load_n(&func_guard_busy[cpu], __ATOMIC_RELAXED)) {
		return false;
	}
	__atomic_store_n(&func_guard_busy[cpu], 1, __ATOMIC_RELAXED);
	/* The fences keep the compiler from moving the recording out from under the guard. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

static inline void func_guard_drop(uint32_t cpu)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&func_guard_busy[cpu], 0, __ATOMIC_RELAXED);
}

#endif
