/*
 * graph: see graph.h. Every hook runs with interrupts masked (the
 * trampolines mask them), on the CPU that runs the thread whose return
 * stack it changes (or, at a thread's exit, on the CPU that has just left
 * it for good, before anyone else may touch it), so a return stack needs
 * no lock; the recording itself is under the function tracer's guard
 * (func_guard.h), but a return is given its address back whether or not
 * it is recorded.
 */
#include "trace/graph.h"

#include <stdbool.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "lib/panic.h"
#include "sched/thread.h"
#include "trace/func_guard.h"
#include "trace/ktrace.h"

/* arch/x86_64/fentry.S: where a recorded call returns to. */
extern const char graph_return[];

static uint64_t ns_scale;   /* [a] nanoseconds = TSC ticks * ns_scale >> 32 */
static uint32_t max_depth;  /* [a] the frames a return stack may hold now */
static uint64_t overflowed; /* [a] calls a full return stack had no room for */
/*
 * [a] Each CPU's last thread whose hook ran on its own stack while it was
 * the current thread: the owner of a stack the CPU has not left yet though
 * its current thread changed (graph.h). Only that CPU sets its own; a
 * thread's exit takes it out of every CPU's, so none is ever a freed one.
 */
static struct thread *stack_owner[MAX_CPUS];

void graph_prepare(uint32_t depth)
{
	__atomic_store_n(&ns_scale, (1000000000ull << 32) / timer_tsc_hz(), __ATOMIC_RELAXED);
	__atomic_store_n(&max_depth, depth, __ATOMIC_RELAXED);
}

uint32_t graph_overflowed(void)
{
	uint64_t n = __atomic_load_n(&overflowed, __ATOMIC_RELAXED);

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static bool on_stack(const struct thread *t, uintptr_t slot)
{
	return t && slot - (uintptr_t)t->kstack < KSTACK_SIZE;
}

/* The thread whose kernel stack holds slot, or NULL (an NMI's or a fault's own stack). */
static struct thread *owner(struct cpu *c, uintptr_t slot)
{
	struct thread *t = c->current;

	if (on_stack(t, slot)) {
		if (!t->graph.closed) {
			__atomic_store_n(&stack_owner[c->id], t, __ATOMIC_RELAXED);
		}
		return t;
	}
	t = __atomic_load_n(&stack_owner[c->id], __ATOMIC_RELAXED);
	return on_stack(t, slot) ? t : NULL;
}

/*
 * The events of t's calls carry t's pid and tid, also in the moment the
 * IPC fast path has made the CPU its partner's before it leaves t's
 * stack. Returns the ids to put back.
 */
static uint64_t ids_of(struct cpu *c, const struct thread *t)
{
	uint64_t was = c->trace_ids;

	c->trace_ids = t->trace_ids;
	return was;
}

static uint64_t ns_since(uint64_t start)
{
	unsigned __int128 ticks = rdtsc() - start;

	return (uint64_t)(ticks * __atomic_load_n(&ns_scale, __ATOMIC_RELAXED) >> 32);
}

/*
 * Pops g's newest frame, ended as how says: records graph_exit when
 * record, else counts it missed unless its thread's calls have all ended
 * already (closed).
 */
static void end(struct graph_stack *g, uint64_t how, bool record)
{
	const struct graph_frame *f = &g->f[--g->depth];

	if (record) {
		TTRACE(graph_exit, f->func, g->depth, ns_since(f->start), how);
	} else if (!g->closed) {
		func_guard_miss(1);
	}
}

/*
 * Ends the frames of g that are dead for a call whose return address is
 * at slot: those below it (a live caller's slot is above every callee's),
 * and one at slot itself unless slot still holds graph_return: then the
 * function was jumped to from that frame's (a tail call), which is still
 * under way and returns through both.
 */
static void end_dead(struct graph_stack *g, const uint64_t *slot, bool record)
{
	while (g->depth) {
		const struct graph_frame *top = &g->f[g->depth - 1];

		if (top->slot > (uintptr_t)slot ||
		    (top->slot == (uintptr_t)slot && *slot == (uintptr_t)graph_return)) {
			return;
		}
		end(g, TTRACE_GRAPH_ABANDONED, record);
	}
}

void graph_enter(uint64_t *slot, uint64_t site, uint64_t root)
{
	struct cpu *c = this_cpu();
	struct thread *t = owner(c, (uintptr_t)slot);

	/* Outside the graph (no root, no call of it under way) a call costs this much only. */
	if (!t || t->graph.closed || (!root && !t->graph.depth)) {
		return;
	}
	if (!func_guard_take(c->id)) {
		func_guard_miss(1);
		return;
	}
	struct graph_stack *g = &t->graph;
	uint64_t ids = ids_of(c, t);

	/* Once the dead frames end, a call that is no root may be outside the graph after all. */
	end_dead(g, slot, true);
	/* A depth made smaller meanwhile may find more frames than it allows: still full. */
	if (g->depth >= __atomic_load_n(&max_depth, __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&overflowed, 1, __ATOMIC_RELAXED);
	} else if (root || g->depth) {
		g->f[g->depth] = (struct graph_frame){
		    .slot = (uintptr_t)slot, .ret = *slot, .func = site, .start = rdtsc()};
		/* Under the guard no other hook of this CPU runs before the frame counts. */
		*slot = (uintptr_t)graph_return;
		TTRACE(graph_entry, site, g->depth);
		g->depth++;
	}
	c->trace_ids = ids;
	func_guard_drop(c->id);
}

uint64_t graph_leave(uint64_t *slot)
{
	struct cpu *c = this_cpu();
	struct thread *t = owner(c, (uintptr_t)slot);

	if (!t) {
		panic("graph: a return at %p on no thread's stack", slot);
	}
	struct graph_stack *g = &t->graph;
	/* An exited thread's calls have ended already: each only gets its address back. */
	bool record = !g->closed && func_guard_take(c->id);
	uint64_t ids = record ? ids_of(c, t) : 0;

	while (g->depth && g->f[g->depth - 1].slot < (uintptr_t)slot) {
		end(g, TTRACE_GRAPH_ABANDONED, record);
	}
	if (!g->depth || g->f[g->depth - 1].slot != (uintptr_t)slot) {
		panic("graph: no call under way of thread %u returns at %p", t->tid, slot);
	}
	uint64_t ret = g->f[g->depth - 1].ret;

	end(g, TTRACE_GRAPH_RETURNED, record);
	if (record) {
		c->trace_ids = ids;
		func_guard_drop(c->id);
	}
	return ret;
}

void graph_thread_exit(struct thread *t)
{
	struct cpu *c = this_cpu();
	struct graph_stack *g = &t->graph;

	/*
	 * The frames stay, their swaps with them: should one of the calls
	 * return after all, graph_leave() still has its address.
	 */
	if (g->depth && !func_guard_take(c->id)) {
		func_guard_miss(g->depth);
	} else if (g->depth) {
		uint64_t ids = ids_of(c, t);

		for (uint32_t i = g->depth; i-- > 0;) {
			TTRACE(graph_exit, g->f[i].func, i, ns_since(g->f[i].start),
			       TTRACE_GRAPH_EXITED);
		}
		c->trace_ids = ids;
		func_guard_drop(c->id);
	}
	g->closed = true;
	/* No CPU sets t again: it runs nowhere, and its stack is closed. */
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		struct thread *was = t;

		__atomic_compare_exchange_n(&stack_owner[i], &was, NULL, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	}
}
