/*
 * trigger: a table of the kinds' triggers, each a copy of its program
 * as a filter is (trigger.h says how it is shared), with the counts a
 * firing changes. The firing itself only counts and marks: the stack is
 * walked by the slow path, the stop is the slow path's check, and a save
 * is the reader's, told at the next tick (wake.c).
 */
#include "trace/trigger.h"

#include "abi/trace.h"
#include "arch/x86_64/timer.h"
#include "lib/string.h"
#include "trace/pred_record.h"
#include "trace/tracepoint.h"

struct trigger {
	uint32_t action; /* [stop] TTRACE_TRIG_*; NONE: no trigger */
	uint32_t n;	 /* [stop] instructions, kept for GET */
	uint64_t fired;	 /* [a] times the program held */
	uint64_t first;	 /* [a] ns since boot of the first firing; 0: none yet */
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX]; /* [stop] */
};

/* [stop] changed with every other CPU stopped; read with interrupts off. */
static struct trigger triggers[TTRACE_KIND_LIMIT];
static struct ttrace_pred_jumps programs[TTRACE_KIND_LIMIT];
const struct ttrace_pred_jumps *trigger_of[TTRACE_KIND_LIMIT];
static uint64_t kinds;
uint32_t trigger_stopped_by;
static uint64_t stop_kinds; /* [stop] bit k: triggers[k] is a STOP */
static bool saves_pending;  /* [a] a SAVE trigger fired; the reader has not been told */

void trigger_install(uint16_t kind, const struct ttrace_trigger *t,
		     const struct ttrace_pred_jumps *j)
{
	struct trigger *g = &triggers[kind];
	uint64_t bit = 1ull << kind;

	g->action = t->action;
	g->n = t->n;
	memcpy(g->insn, t->insn, t->n * sizeof(t->insn[0]));
	if (t->action) {
		programs[kind] = *j;
	}
	pred_record_named(kind, PRED_NAMED_TRIGGER, t->action && j->reads_comm);
	trigger_of[kind] = t->action ? &programs[kind] : NULL;
	/* relaxed: no CPU runs a trigger now (every other one is stopped) */
	__atomic_store_n(&g->fired, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g->first, 0, __ATOMIC_RELAXED);
	kinds = t->action ? kinds | bit : kinds & ~bit;
	stop_kinds = t->action == TTRACE_TRIG_STOP ? stop_kinds | bit : stop_kinds & ~bit;
	if (__atomic_load_n(&trigger_stopped_by, __ATOMIC_RELAXED) == kind + 1u) {
		/* relaxed: the CPUs see it as they restart, after the stop's serialising */
		__atomic_store_n(&trigger_stopped_by, 0, __ATOMIC_RELAXED);
	}
}

void trigger_get(uint16_t kind, struct ttrace_trigger *t)
{
	const struct trigger *g = &triggers[kind];

	*t = (struct ttrace_trigger){.action = g->action, .n = g->n};
	memcpy(t->insn, g->insn, g->n * sizeof(g->insn[0]));
	/* relaxed: counts a firing on another CPU may be about to change */
	t->fired = __atomic_load_n(&g->fired, __ATOMIC_RELAXED);
	t->first_ns = __atomic_load_n(&g->first, __ATOMIC_RELAXED);
}

uint64_t trigger_kinds(void)
{
	return kinds;
}

bool trigger_stop_set(void)
{
	return stop_kinds != 0;
}

uint32_t trigger_fired(uint16_t kind)
{
	struct trigger *g = &triggers[kind];

	/* relaxed: a count; the reader's GET takes it as it is */
	if (__atomic_fetch_add(&g->fired, 1, __ATOMIC_RELAXED)) {
		/* a SAVE's later firings are counted only: one save a trigger */
		return g->action == TTRACE_TRIG_SAVE ? TTRACE_TRIG_NONE : g->action;
	}
	/* the first firing, on one CPU only (the add above): the moment, never 0 (none) */
	uint64_t now = timer_now_ns();
	__atomic_store_n(&g->first, now ? now : 1, __ATOMIC_RELAXED);
	if (g->action == TTRACE_TRIG_SAVE) {
		/* release: the moment first; pairs with the acquire exchange in
		 * trigger_saves_take() */
		__atomic_store_n(&saves_pending, true, __ATOMIC_RELEASE);
	}
	return g->action;
}

void trigger_stop(uint16_t kind)
{
	uint32_t none = 0;

	/*
	 * relaxed: this CPU's next reservation checks it after this store,
	 * interrupts off in between; another CPU's, as soon as it sees it.
	 * Only the first stop names the kind: a later one changes nothing.
	 */
	__atomic_compare_exchange_n(&trigger_stopped_by, &none, kind + 1u, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

bool trigger_saves_pending(void)
{
	return __atomic_load_n(&saves_pending, __ATOMIC_RELAXED);
}

bool trigger_saves_take(void)
{
	/* acquire: pairs with the release store in trigger_fired(): the moment is seen */
	return __atomic_exchange_n(&saves_pending, false, __ATOMIC_ACQUIRE);
}
