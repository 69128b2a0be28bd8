/*
 * emit: the slow path, ttrace_emit_full() (emit.h), and the other
 * events written through it: user events (ttrace_emit_user()) and events
 * with a call stack (ttrace_emit_stacked()). It checks everything the
 * straight path leaves to it (PID tracking, the echo, call stacks, the
 * kinds' filters and triggers, the rings a trigger stopped, the CPU's
 * ring) and takes no lock. And the filtered path's interpreter,
 * ttrace_emit_filtered(), for the kinds whose programs pred_run.h could
 * not compile.
 */
#include "trace/emit.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "common/trace_format.h"
#include "common/trace_names.h"
#include "common/trace_ring.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "trace/area.h"
#include "trace/echo.h"
#include "trace/filter.h"
#include "trace/ktrace.h"
#include "trace/pred_record.h"
#include "trace/ring_write.h"
#include "trace/stack.h"
#include "trace/tracepoint.h"
#include "trace/trigger.h"

/* Echoes ev, recorded on cpu, on the console (echo.c) as a reader would print it. */
static void echo(const struct ttrace_event *ev, uint32_t cpu)
{
	struct ttrace_record rec = {
	    .ts = ev->ts & TTRACE_TS_MASK,
	    .pid = ev->pid,
	    .tid = ev->tid,
	    .kind = ev->kind,
	    .cpu = (uint8_t)cpu,
	    .ctx = ev->ctx,
	};

	for (uint32_t i = 0; i < ev->nwords; i++) {
		rec.data[i] = ev->data[i];
	}
	echo_event(&rec);
}

/* Whether PID tracking leaves out events of thread t (abi/trace.h TTRACE_OP_TRACK). */
static bool untracked(const struct thread *t)
{
	/* relaxed: a tracepoint racing a change may go either way, as with the mask */
	return __atomic_load_n(&area.hdr->tracking, __ATOMIC_RELAXED) &&
	       !(t && t->proc && __atomic_load_n(&t->proc->tracked, __ATOMIC_RELAXED));
}

/* How emit() writes an event. */
#define EMIT_USER    (1u << 0) /* a user event: the user context */
#define EMIT_STACKED (1u << 1) /* with its call stack, walked from the start given */

/* Interrupts off: counts an event of c's that a filter rejected (abi/trace.h, ACCOUNTING). */
static void count_filtered(struct cpu *c)
{
	uint64_t *n = &c->trace_head->filtered;

	/*
	 * A counter only this CPU writes: one instruction, which no
	 * interrupt splits, and a reader on another CPU sees whole (as
	 * dropped in W1), without a lock. Through the view: a quiet
	 * process's events are not emitted, so not counted.
	 */
	__asm__ volatile("incq %0" : "+m"(*n));
}

/*
 * Whether kind's filter keeps this event of c's with the nwords words at
 * data, and what its trigger makes of it, both run with interrupts off
 * (filter.h, trigger.h) over c's record (pred_record.h): a rejected
 * event is counted in the ring's filtered before it returns; *fired is
 * the action of a trigger that fired on a kept one, else
 * TTRACE_TRIG_NONE.
 */
static bool checked_in(struct cpu *c, uint16_t kind, const uint64_t *data, uint8_t nwords,
		       uint32_t how, uint32_t *fired)
{
	uint64_t flags = irq_save();
	uint8_t ctx = percpu_trace_ctx();

	for (uint32_t i = 0; i < TTRACE_HEAD_WORDS; i++) {
		c->trace_pred_words[i] = i < nwords ? data[i] : 0;
	}
	/* the record's context is the CPU's: a user event's, for as long as it is checked */
	if (how & EMIT_USER) {
		percpu_set_trace_ctx(TTRACE_CTX_USER);
	}
	const struct ttrace_pred_jumps *filter = filter_of[kind], *trigger = trigger_of[kind];
	pred_record_fill(c, kind);
	bool keep = !filter || ttrace_pred_run(filter, c);
	*fired =
	    keep && trigger && ttrace_pred_run(trigger, c) ? trigger_fired(kind) : TTRACE_TRIG_NONE;
	percpu_set_trace_ctx(ctx);
	if (!keep) {
		count_filtered(c);
	}
	irq_restore(flags);
	return keep;
}

/*
 * Writes one event into this CPU's ring, checking everything: PID
 * tracking, the filter and the trigger, the rings a trigger stopped,
 * the echo, the ring; with its call stack walked from start when how
 * has EMIT_STACKED or a STACK trigger fires (start may be NULL only
 * without either). False if drop mode dropped it; an event PID tracking
 * leaves out is not dropped, only not wanted.
 */
static bool emit(uint16_t kind, const uint64_t *data, uint8_t nwords, uint32_t how,
		 const struct stack_start *start)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	uint64_t with_stack[TTRACE_EVENT_WORDS_MAX];
	uint32_t fired = TTRACE_TRIG_NONE;

	if (!c->trace_ring.hdr || nwords > TTRACE_EVENT_WORDS_MAX) {
		return false; /* a CPU beyond those the area was laid out for; no such event */
	}
	if (c->trace_quiet || untracked(t) || trigger_stopped()) {
		return true; /* left out, as the quiet view leaves it; or the rings are stopped */
	}
	if ((filter_of[kind] || trigger_of[kind]) &&
	    !checked_in(c, kind, data, nwords, how, &fired)) {
		return true; /* rejected, and counted: not dropped */
	}
	if ((how & EMIT_STACKED || fired == TTRACE_TRIG_STACK) && start) {
		nwords = stack_event(with_stack, data, nwords, start);
		data = with_stack;
	}
	/* the same pid, tid and context the straight path writes (percpu.h) */
	struct ttrace_event ev = {
	    .pid = (uint32_t)c->trace_ids,
	    .tid = (uint32_t)(c->trace_ids >> 32),
	    .kind = kind,
	    .ctx = how & EMIT_USER ? TTRACE_CTX_USER : percpu_trace_ctx(),
	    .nwords = nwords,
	    .data = data,
	};
	/*
	 * The timestamp is taken with the reservation, interrupts off, so a
	 * ring's timestamps rise with its indices: an interrupt's event cannot
	 * slip between them, and readers merging CPUs by time see each CPU in
	 * order. Filling the slots may be interrupted again (W2, W3). The
	 * stop is checked in the same window, and a STOP trigger's own event
	 * stops the rings in it: on this CPU no event reserves after that one.
	 */
	uint64_t index;
	uint64_t flags = irq_save();
	if (trigger_stopped()) {
		irq_restore(flags);
		return true; /* stopped since the check above: not taken, as with the category off
			      */
	}
	ev.ts = rdtsc();
	bool stored = ttrace_ring_reserve(&c->trace_ring, TTRACE_EVENT_SLOTS(nwords), &index);
	if (fired == TTRACE_TRIG_STOP) {
		trigger_stop(kind);
	}
	irq_restore(flags);
	if (stored) {
		ttrace_ring_commit(&c->trace_ring, index, &ev);
	}
	/* relaxed: an event racing a change of the echo may be echoed or not */
	uint64_t echoed = __atomic_load_n(&area.hdr->echo, __ATOMIC_RELAXED);
	if (echoed && ttrace_kind_info(kind) && echoed & ttrace_kind_info(kind)->category) {
		echo(&ev, c->id);
	}
	return stored;
}

/* noinline: its frame is the one a stack walk starts from (emit.h) */
__attribute__((noinline)) bool ttrace_emit_full(uint32_t kind_n, uint64_t d0, uint64_t d1,
						uint64_t d2, uint64_t d3, uint64_t d4)
{
	const uint64_t data[TTRACE_HEAD_WORDS] = {d0, d1, d2, d3, d4};
	uint8_t kind = (uint8_t)kind_n;
	struct stack_start start = {.kernel_fp = (uintptr_t)__builtin_frame_address(0),
				    .user = stack_user_regs()};
	/* relaxed: an event racing TTRACE_OP_STACK may carry its stack or not */
	bool stacked = __atomic_load_n(&area.hdr->stack_kinds, __ATOMIC_RELAXED) >> (kind & 63) & 1;

	emit(kind, data, (uint8_t)(kind_n >> TTRACE_SLOW_NWORDS_SHIFT), stacked ? EMIT_STACKED : 0,
	     &start);
	return false;
}

/*
 * For ttrace_emit_filtered(), interrupts off since it saved flags, as its
 * last step: the event of kind_n whose trigger fired, its words in this
 * CPU's record, through the slow path. The words are taken back before
 * an interrupt may use the record again, so the caller need not keep
 * them.
 */
static __attribute__((noinline)) bool emit_fired(uint32_t kind_n, uint64_t flags)
{
	const uint64_t *record = this_cpu()->trace_pred_words;
	uint64_t w[TTRACE_HEAD_WORDS];

	for (uint32_t i = 0; i < TTRACE_HEAD_WORDS; i++) {
		w[i] = record[i];
	}
	irq_restore(flags);
	return ttrace_emit_full(kind_n, w[0], w[1], w[2], w[3], w[4]);
}

bool ttrace_emit_filtered(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
			  uint64_t d4)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();

	c->trace_pred_words[0] = d0;
	c->trace_pred_words[1] = d1;
	c->trace_pred_words[2] = d2;
	c->trace_pred_words[3] = d3;
	c->trace_pred_words[4] = d4;
	uint8_t kind = (uint8_t)kind_n;
	const struct ttrace_pred_jumps *filter = filter_of[kind], *trigger = trigger_of[kind];
	pred_record_fill(c, kind);
	if (filter && !ttrace_pred_run(filter, c)) {
		count_filtered(c);
		irq_restore(flags);
		return false;
	}
	if (__builtin_expect(!trigger || !ttrace_pred_run(trigger, c), 1)) {
		irq_restore(flags);
		return true;
	}
	/* a firing's action is the slow path's: it checks the event again, and counts it */
	return emit_fired(kind_n, flags);
}

bool ttrace_emit_user(const uint64_t *data, uint8_t nwords)
{
	/* no start: a user event carries no stack, and no STACK trigger is set on its kind */
	return emit(TTRACE_KIND_user, data, nwords, EMIT_USER, NULL);
}

void ttrace_emit_stacked(uint16_t kind, const uint64_t *data, uint8_t nwords,
			 const struct stack_start *s)
{
	emit(kind, data, nwords, EMIT_STACKED, s);
}
