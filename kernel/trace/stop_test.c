/*
 * stop_test: selftest=tracenest's part on two CPUs. An operation that
 * turns an extra on (here drop mode) moves the sites of the tracepoints to
 * the slow path with every other CPU stopped (smp_stop_others()), and only
 * then takes effect. A CPU stopped inside a straight path, its slot not
 * yet reserved, must not go on to reserve it once the stop is over, or it
 * writes past the operation (here: overwrites in drop mode); one stopped
 * after its reservation finishes the event it reserved before the move
 * (tracepoint.h).
 *
 * The tracenest method, with the stop for the nested event: the second CPU
 * (id 1), on its way to its idle loop, so in thread context with
 * interrupts on, single-steps (RFLAGS.TF) through an enabled tracepoint,
 * its ring full. In pass k, the debug exception after its k-th step says
 * whether the tracepoint has reserved its slot yet, lets the boot CPU
 * switch to drop mode, and waits, interrupts masked, until that switch's
 * stop IPI is pending: the stop then lands before the next instruction.
 * After its first step past the stop, it waits for the switch to have
 * returned, so the rest of the pass sees drop mode in force. The boot
 * CPU then checks the second CPU's ring: a tracepoint stopped before its
 * reservation must have had its event dropped (counted in dropped, head
 * unmoved); one stopped after it, written whole.
 */
#include "trace/stop_test.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "common/trace_ring.h"
#include "lib/printk.h"
#include "trace/ktrace.h"
#include "trace/ring_write.h"

#define STOP_CPU   1   /* the CPU stopped: the first one started after the boot CPU */
#define PASSES_MAX 400 /* far more steps than a tracepoint's straight path takes */
#define WAIT_S	   10  /* far longer than a pass takes, even on a loaded host */
#define END	   UINT32_MAX

/* Between the two CPUs: pass k's steps store k + 1. */
static uint32_t ready;	 /* [a] the second CPU waits for passes */
static uint32_t request; /* [a] the boot CPU: the pass asked for, or END */
static uint32_t at_step; /* [a] the second CPU waits at its step for the stop */
static uint32_t op_done; /* [a] the boot CPU: the switch to drop mode returned */
static uint32_t done;	 /* [a] the second CPU: its pass ended */
static bool reserved;	 /* [a] before at_step: the tracepoint had reserved its slot */

/* [o] the second CPU's, while it steps. */
static bool stepping;
static uint32_t stop_at;   /* the step after which this pass is stopped */
static uint32_t steps;	   /* steps taken in this pass */
static bool reached;	   /* this pass got to stop_at */
static bool resumed;	   /* ... and has waited for the switch to return */
static uint64_t pass_head; /* its ring's head when this pass began */

/* The time past which a wait gives up: the other CPU is not answering. */
static uint64_t deadline(void)
{
	return rdtsc() + WAIT_S * timer_tsc_hz();
}

/* Waits until *flag holds want; false if until passed first. */
static bool await(const uint32_t *flag, uint32_t want, uint64_t until)
{
	/* acquire: pairs with the release store of flag: what came before it is seen */
	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
		if (rdtsc() > until) {
			return false;
		}
		cpu_relax();
	}
	return true;
}

static uint64_t head_of(const struct ttrace_ring *r)
{
	/* relaxed: the stepping CPU's own ring, or its counts ordered by the flags above */
	return __atomic_load_n(&r->state->head, __ATOMIC_RELAXED);
}

bool ttrace_stop_step(void)
{
	if (!stepping || this_cpu()->id != STOP_CPU) {
		return false;
	}
	if (steps == stop_at) {
		/* relaxed: at_step's release store below publishes it */
		__atomic_store_n(&reserved, head_of(&this_cpu()->trace_ring) != pass_head,
				 __ATOMIC_RELAXED);
		reached = true;
		/* release: pairs with the boot CPU's acquire load; reserved is seen with it */
		__atomic_store_n(&at_step, stop_at + 1, __ATOMIC_RELEASE);
		uint64_t until = deadline();
		while (!apic_pending(VECTOR_CALL) && rdtsc() < until) {
			cpu_relax();
		}
	} else if (reached && !resumed) {
		resumed = true;
		(void)await(&op_done, stop_at + 1, deadline()); /* late: the boot CPU says so */
	}
	steps++;
	return true;
}

/* The tracepoint stepped through. */
static __attribute__((noinline)) void stepped(uint64_t pass)
{
	TTRACE(test_tick, pass);
}

/* Fills ring r (this CPU's), so that drop mode drops every event now. */
static void fill(struct ttrace_ring *r)
{
	const uint64_t word = 0;
	struct ttrace_event ev = {.kind = TTRACE_KIND_test_tick, .nwords = 1, .data = &word};

	for (uint32_t i = 0; i < r->entries; i++) {
		uint64_t index;

		ev.ts = rdtsc();
		/* overwrite mode, as at boot: the reservation always succeeds */
		if (ttrace_ring_reserve(r, 1, &index)) {
			ttrace_ring_commit(r, index, &ev);
		}
	}
}

void ttrace_stop_test_ap(void)
{
	struct cpu *c = this_cpu();

	if (c->id != STOP_CPU || !c->trace_ring.hdr) {
		return;
	}
	fill(&c->trace_ring);
	/* release: pairs with the boot CPU's acquire load */
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	for (uint32_t last = 0;;) {
		uint32_t pass;

		/* acquire: pairs with the boot CPU's release store. Interrupts on: stops come. */
		while ((pass = __atomic_load_n(&request, __ATOMIC_ACQUIRE)) == last) {
			cpu_relax();
		}
		if (pass == END) {
			return;
		}
		last = pass;
		stop_at = pass - 1;
		steps = 0;
		reached = resumed = false;
		pass_head = head_of(&c->trace_ring);
		stepping = true;
		cpu_set_trap_flag(true);
		stepped(pass - 1);
		cpu_set_trap_flag(false);
		stepping = false;
		/* release: pairs with the boot CPU's acquire load; its ring's writes come first */
		__atomic_store_n(&done, pass, __ATOMIC_RELEASE);
	}
}

/* What the passes found. */
struct tally {
	uint32_t passes;
	uint32_t before; /* passes stopped before the reservation: dropped */
	uint32_t after;	 /* passes stopped after it: written */
	bool finished;	 /* the last pass stepped past the tracepoint's end unstopped */
	const char *wrong;
	uint64_t written, dropped; /* in the pass found wrong */
};

/* The events of ring r in [from, to): true if they are exactly one test_tick of word pass. */
static bool one_tick(const struct ttrace_ring *r, uint64_t from, uint64_t to, uint64_t pass)
{
	struct ttrace_cursor cur;
	struct ttrace_record rec[2];

	ttrace_cursor_init(&cur, from);
	cur.end = to;
	return ttrace_ring_read(r, &cur, rec, 2) == 1 && rec[0].kind == TTRACE_KIND_test_tick &&
	       rec[0].data[0] == pass && !cur.lost && cur.index == to;
}

/*
 * Pass k: the second CPU stopped after its k-th step by the switch to drop
 * mode. Returns false once a pass ran to its end without being stopped
 * (the last), or on something wrong (t->wrong).
 */
static bool pass(struct tally *t, struct ttrace_ring *r, uint32_t k)
{
	struct ttrace_counts b, a;
	uint64_t until = deadline();
	bool at = false, ended = false;

	if (ttrace_ring_counts(r, &b)) {
		t->wrong = "no counts";
		return false;
	}
	/* release: pairs with the second CPU's acquire load */
	__atomic_store_n(&request, k + 1, __ATOMIC_RELEASE);
	/* acquire: pairs with the second CPU's release stores */
	while (!(at = __atomic_load_n(&at_step, __ATOMIC_ACQUIRE) == k + 1) &&
	       !(ended = __atomic_load_n(&done, __ATOMIC_ACQUIRE) == k + 1) && rdtsc() < until) {
		cpu_relax();
	}
	if (!at && !ended) {
		t->wrong = "the second cpu stopped answering";
		return false;
	}
	t->passes++;
	if (!at) {
		/* Stepped past the tracepoint's end: its event written, in overwrite mode. */
		t->finished = true;
		if (ttrace_ring_counts(r, &a) || !one_tick(r, b.head, a.head, k)) {
			t->wrong = "an unstopped pass did not write its event";
		}
		return false;
	}
	bool was_reserved = __atomic_load_n(&reserved, __ATOMIC_RELAXED);
	int err = ttrace_control(TTRACE_OP_MODE, TTRACE_MODE_DROP);
	/* release: pairs with the second CPU's acquire load: drop mode is in force */
	__atomic_store_n(&op_done, k + 1, __ATOMIC_RELEASE);
	if (err < 0 || !await(&done, k + 1, deadline()) ||
	    ttrace_control(TTRACE_OP_MODE, TTRACE_MODE_OVERWRITE) < 0 ||
	    ttrace_ring_counts(r, &a)) {
		t->wrong = "the switches of mode or the pass did not end";
		return false;
	}
	t->written = a.head - b.head;
	t->dropped = a.dropped - b.dropped;
	if (was_reserved) {
		t->after++;
		if (a.dropped != b.dropped || !one_tick(r, b.head, a.head, k)) {
			t->wrong =
			    "a tracepoint stopped after its reservation did not finish its event";
		}
	} else {
		t->before++;
		if (a.head != b.head || a.dropped != b.dropped + 1) {
			t->wrong = "a tracepoint stopped before its reservation wrote its event in "
				   "drop mode (or did not count it dropped)";
		}
	}
	return !t->wrong;
}

void ttrace_stop_test(void)
{
	uint64_t saved = ttrace_mask;
	struct tally t = {0};

	if (ncpus <= STOP_CPU) {
		printk("tracenest: a cpu stopped inside a tracepoint needs 2 cpus (smp=2), has %u; "
		       "not run\n",
		       ncpus);
		return;
	}
	if (!await(&ready, 1, deadline())) {
		printk("tracenest: FAILED: cpu %u never waited for its passes\n", STOP_CPU);
		return;
	}
	if (ttrace_control(TTRACE_OP_ENABLE, TTRACE_CAT(TEST)) < 0) {
		t.wrong = "no tracing to test";
	}
	for (uint32_t k = 0; !t.wrong && k < PASSES_MAX && pass(&t, &cpus[STOP_CPU].trace_ring, k);
	     k++) {
	}
	if (!t.wrong && !t.finished) {
		t.wrong = "steps without end";
	}
	/* release: pairs with the second CPU's acquire load: it goes on to idle */
	__atomic_store_n(&request, END, __ATOMIC_RELEASE);
	ttrace_control(TTRACE_OP_DISABLE, TTRACE_CAT(TEST) & ~saved);
	if (t.wrong) {
		printk("tracenest: FAILED: a cpu stopped inside a tracepoint: %s (pass %u: %lu "
		       "written, %lu dropped)\n",
		       t.wrong, t.passes - 1, t.written, t.dropped);
		return;
	}
	printk("tracenest: a cpu stopped after each step of a tracepoint while drop mode comes on: "
	       "%u passes, %u stopped before its reservation (each dropped), %u after it (each "
	       "written whole)\n",
	       t.passes, t.before, t.after);
}
