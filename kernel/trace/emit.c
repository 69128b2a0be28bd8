/*
 * emit: the tracepoints' straight path, ttrace_emit1() .. ttrace_emit5()
 * (ktrace.h). An event of a kernel kind fits one slot; with PID tracking,
 * the echo and drop mode off, as they usually are, it goes from the
 * tracepoint's registers straight into this CPU's ring: one unlocked
 * exchange reserves the slot (W1), nine stores write it (W2, W3), and no
 * interrupt is masked. Everything else goes to ttrace_emit_slow().
 *
 * Built without frame pointers (Makefile): these functions call nothing
 * but their slow path, which is a tail call, so a stack walk loses no
 * frame of them, and every event would pay for a frame.
 */
#include "trace/ktrace.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "sched/thread.h"
#include "trace/emit.h"
#include "trace/ring_write_one.h"

/* An index reserved, and the time it was reserved at. */
struct reservation {
	uint64_t index;
	uint64_t ts; /* & TTRACE_TS_MASK */
};

/*
 * W1 on the current CPU's ring r in overwrite mode: reserves the next
 * index, with the time it was reserved at. The time is read between the
 * load of head and the exchange that moves it on, so a ring's timestamps
 * rise with its indices, as readers merging CPUs by time need: an
 * interrupt whose event lands in between moves head and fails the
 * exchange, and the time is read again after it.
 */
static inline __attribute__((always_inline)) struct reservation reserve_now(struct ttrace_ring *r)
{
	uint64_t *head_p = &r->state->head;
	/* relaxed: only this CPU stores head; a nested write moving it fails the exchange */
	struct reservation res = {.index = __atomic_load_n(head_p, __ATOMIC_RELAXED)};

	do {
		res.ts = rdtsc_masked(TTRACE_TS_MASK);
		/* release: pairs with the readers' acquire loads of head (R1-R5) */
	} while (!local_cmpxchg(head_p, &res.index, res.index + 1));
	return res;
}

/*
 * An event of n (a constant, 1..5) words. A thread's trace_ctx is
 * TTRACE_CTX_KERNEL (0) unless it belongs to a process, so the context
 * takes no test of t->proc; its pid and tid are ready in t->trace_ids.
 */
static inline __attribute__((always_inline)) void emit(uint64_t kind_word, uint32_t n, uint64_t d0,
						       uint64_t d1, uint64_t d2, uint64_t d3,
						       uint64_t d4)
{
	struct cpu *c = this_cpu();
	const struct thread *t = c->current;

	/* relaxed: a tracepoint racing a change may take either path; both check what they need */
	if (__builtin_expect(__atomic_load_n(&ttrace_emit_extras, __ATOMIC_RELAXED), 0) || !t) {
		/* no current thread: early in a CPU's boot */
		ttrace_emit_slow(kind_word | n, d0, d1, d2, d3, d4);
		return;
	}
	uint64_t ctx = t->trace_ctx;

	if (__builtin_expect(c->irq_depth, 0)) {
		ctx = TTRACE_CTX_IRQ;
	}
	/* word 1 of the head entry but its seq: kind, cpu, ctx; no continuation */
	uint64_t word1 = kind_word | c->trace_word1 | ctx << TTRACE_WORD1_CTX_SHIFT;
	uint64_t ids = t->trace_ids;
	struct reservation res = reserve_now(&c->trace_ring);

	word1 |= (uint32_t)res.index;

	store_one(ttrace_ring_slot(&c->trace_ring, res.index), res.ts, word1, ids, d0, d1, d2, d3,
		  d4);
}

void ttrace_emit1(uint64_t kind_word, uint64_t d0)
{
	emit(kind_word, 1, d0, 0, 0, 0, 0);
}

void ttrace_emit2(uint64_t kind_word, uint64_t d0, uint64_t d1)
{
	emit(kind_word, 2, d0, d1, 0, 0, 0);
}

void ttrace_emit3(uint64_t kind_word, uint64_t d0, uint64_t d1, uint64_t d2)
{
	emit(kind_word, 3, d0, d1, d2, 0, 0);
}

void ttrace_emit4(uint64_t kind_word, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3)
{
	emit(kind_word, 4, d0, d1, d2, d3, 0);
}

void ttrace_emit5(uint64_t kind_word, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		  uint64_t d4)
{
	emit(kind_word, 5, d0, d1, d2, d3, d4);
}
