/*
 * nest_test: selftest=tracenest. The straight path of a tracepoint
 * (tracepoint.h) must leave a ring in index order by time, with every
 * event whole and counted, whatever interrupt lands wherever inside it.
 * Under emulation an interrupt arrives only between translated blocks, so
 * waiting for one to land inside the path proves nothing; instead the
 * boot CPU single-steps (RFLAGS.TF) through a few enabled tracepoints
 * with interrupts masked, and the debug exception after each instruction
 * writes two events, as an interrupt handler's irq_entry and irq_exit.
 * So an interrupt's events fall between every two instructions of each
 * tracepoint: between its load of head and its reservation (the path then
 * takes the ts below its own), and between its reservation and its
 * commit. Then the ring is read back with the readers' own code.
 */
#include "trace/nest_test.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "common/trace_ring.h"
#include "lib/printk.h"
#include "trace/ktrace.h"

#define STEPPED_TRACEPOINTS 8
#define RFLAGS_TF	    (1ull << 8) /* SDM 3A 2.3: trap after each instruction */
#define READ_BATCH	    32

static bool stepping; /* [o] the boot CPU, while it steps */
static uint64_t steps;
static struct ttrace_record batch[READ_BATCH];

bool ttrace_nest_step(void)
{
	if (!stepping) {
		return false;
	}
	steps++;
	uint8_t ctx = percpu_trace_ctx(this_cpu());
	percpu_set_trace_ctx(TTRACE_CTX_IRQ);
	TTRACE(irq_entry, EXC_DEBUG);
	TTRACE(irq_exit, EXC_DEBUG);
	percpu_set_trace_ctx(ctx);
	return true;
}

/* The tracepoints stepped through, with TF set around the call. */
static __attribute__((noinline)) void stepped(void)
{
	for (uint64_t i = 0; i < STEPPED_TRACEPOINTS; i++) {
		TTRACE(test_tick, i);
	}
}

static void set_tf(bool on)
{
	uint64_t flags;

	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	flags = on ? flags | RFLAGS_TF : flags & ~RFLAGS_TF;
	__asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

/* What the checks found; NULL: nothing wrong. */
struct findings {
	const char *wrong;
	uint64_t index; /* where */
	uint64_t events, ticks, nested, nested_inside;
};

/* Keeps the first thing found wrong, and where. */
static void found(struct findings *f, const char *wrong, uint64_t index)
{
	if (!f->wrong) {
		f->wrong = wrong;
		f->index = index;
	}
}

/* One event, read in index order after prev_ts (the one before it), against the rules. */
static void check_event(struct findings *f, const struct ttrace_record *e, uint64_t *prev_ts,
			const struct ttrace_record *next)
{
	f->events++;
	if (e->ts < *prev_ts) {
		found(f, "a timestamp below the one before it", e->index);
	}
	*prev_ts = e->ts;
	if (e->kind == TTRACE_KIND_test_tick) {
		if (e->data[0] != f->ticks || e->ncont) {
			found(f, "a tracepoint's event with the wrong words", e->index);
		}
		f->ticks++;
		/* the step after the reservation nests before the commit */
		if (next && next->kind == TTRACE_KIND_irq_entry) {
			f->nested_inside++;
		}
	} else if (e->kind == TTRACE_KIND_irq_entry || e->kind == TTRACE_KIND_irq_exit) {
		if (e->data[0] != EXC_DEBUG || e->ctx != TTRACE_CTX_IRQ) {
			found(f, "a nested event with the wrong words or context", e->index);
		}
		f->nested++;
	} else {
		found(f, "an event of a kind nothing here writes", e->index);
	}
}

/* Reads [from, to) of ring r back and checks every event. */
static void check_ring(struct findings *f, const struct ttrace_ring *r, uint64_t from, uint64_t to)
{
	struct ttrace_cursor c;
	uint64_t prev_ts = 0;
	size_t n;

	ttrace_cursor_init(&c, from);
	c.end = to;
	/* one event of lookahead: whether the step after a reservation nested */
	struct ttrace_record pending;
	bool have = false;
	while ((n = ttrace_ring_read(r, &c, batch, READ_BATCH)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (have) {
				check_event(f, &pending, &prev_ts, &batch[i]);
			}
			pending = batch[i];
			have = true;
		}
	}
	if (have) {
		check_event(f, &pending, &prev_ts, NULL);
	}
	if (c.lost || c.cleared || c.index != to) {
		found(f, "entries lost or skipped", c.index);
	}
}

void ttrace_nest_test(void)
{
	uint64_t cats = TTRACE_CAT(TEST) | TTRACE_CAT(IRQ);
	uint64_t saved = ttrace_mask;
	struct ttrace_ring *r = &this_cpu()->trace_ring;
	struct ttrace_counts before, after;
	struct findings f = {0};

	if (ttrace_control(TTRACE_OP_ENABLE, cats) < 0) {
		printk("tracenest: FAILED: no tracing to test\n");
		return;
	}
	/* Interrupts masked from the first count to the last: only the steps' events nest. */
	uint64_t flags = irq_save();
	int err = ttrace_ring_counts(r, &before);
	stepping = true;
	set_tf(true);
	stepped();
	set_tf(false);
	stepping = false;
	err = err ? err : ttrace_ring_counts(r, &after);
	irq_restore(flags);
	ttrace_control(TTRACE_OP_DISABLE, cats & ~saved);
	if (err) {
		printk("tracenest: FAILED: no counts\n");
		return;
	}
	uint64_t from = before.head;
	check_ring(&f, r, from, after.head);
	if (!f.wrong && (f.ticks != STEPPED_TRACEPOINTS || f.nested != 2 * steps ||
			 f.events != after.head - from)) {
		f.wrong = "events missing or extra";
	}
	if (!f.wrong &&
	    (after.emitted - before.emitted != f.events ||
	     after.overwritten != before.overwritten || after.dropped != before.dropped)) {
		f.wrong = "a ledger that does not add up";
	}
	if (!f.wrong && f.nested_inside != STEPPED_TRACEPOINTS) {
		f.wrong = "a tracepoint no step nested into between reserve and commit";
	}
	if (f.wrong) {
		printk("tracenest: FAILED: %s (index %lu; %lu events, %lu tracepoints, %lu nested, "
		       "%lu steps)\n",
		       f.wrong, f.index, f.events, f.ticks, f.nested, steps);
		return;
	}
	printk("tracenest: ok, %lu steps through %u tracepoints: %lu events, %lu nested, "
	       "timestamps in order, ledger exact, each tracepoint nested between reserve and "
	       "commit\n",
	       steps, STEPPED_TRACEPOINTS, f.events, f.nested);
}
