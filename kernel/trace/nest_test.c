/*
 * nest_test: selftest=tracenest. The straight path of a tracepoint
 * (tracepoint.h) must leave a ring in index order by time, with every
 * event whole and counted, whatever interrupt lands wherever inside it.
 * Under emulation an interrupt arrives only between translated blocks, so
 * waiting for one to land inside the path proves little; instead the boot
 * CPU single-steps (RFLAGS.TF) through an enabled tracepoint with
 * interrupts masked, once per instruction on the way: in pass k the debug
 * exception after the k-th step writes two events, as an interrupt
 * handler's irq_entry and irq_exit would. So some pass nests between the
 * load of head and the exchange (which fails, and the path reads the
 * clock again), and some between the reservation and the commit. Then
 * the ring is read back with the readers' own code. It tests the straight
 * path, so it wants no extra on (no ttrace.echo= beside it): the slow
 * path reads the clock with interrupts masked, which a debug exception
 * ignores.
 *
 * The steps of a whole pass also tell which path the tracepoint takes:
 * the straight path is a few dozen instructions, the slow one a call of
 * hundreds. So the test then makes each control operation that would
 * move the sites to the slow path fail, and checks that a tracepoint
 * still takes exactly as many steps as before: a failed operation leaves
 * the sites where they were.
 *
 * Last, the same stepping puts another CPU's echo (trace/echo.h) inside
 * this CPU's, every few instructions in turn, for two programs whose pids
 * share a slot of a decoder's name cache: each line must still name its
 * own program.
 */
#include "trace/nest_test.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "common/trace_decoder.h"
#include "common/trace_ring.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "trace/aux_names.h"
#include "trace/echo.h"
#include "trace/ktrace.h"

#define PASSES_MAX  200 /* far more steps than a tracepoint's path takes */
#define READ_BATCH  32
#define NO_PID	    UINT32_MAX /* a pid no process has: TTRACE_OP_TRACK fails */
#define ECHO_STRIDE 16	       /* the echo test nests after every 16th step */
#define ECHO_PASSES 1000       /* far more than an echo's steps / ECHO_STRIDE */
#define ECHO_LINE   256
/* Two programs whose pids share a slot of a decoder's name cache. */
#define ECHO_PID_A 1000
#define ECHO_PID_B (ECHO_PID_A + TTRACE_DECODER_COMMS)

/* [o] the boot CPU's, while it steps. */
static bool stepping;
static uint32_t nest_at;   /* the step after which this pass's events are written */
static uint32_t steps;	   /* steps taken in this pass */
static bool nested;	   /* this pass's events are written */
static uint64_t pass_head; /* the ring's head when this pass began */
static uint32_t inside; /* passes whose events came between the tracepoint's reserve and commit */
static void (*nest_fn)(void); /* what happens after step nest_at */
static struct ttrace_record batch[READ_BATCH];

/*
 * Whether the tracepoint stepped through has reserved its slot and not
 * committed it: an index was reserved in this pass, and the last one is
 * not written yet. (This pass's nested events come after the check.)
 */
static bool reserved_unwritten(const struct ttrace_ring *r)
{
	/* relaxed: this CPU's own ring, which only this CPU writes */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_RELAXED);
	uint64_t last = head - 1;
	const union ttrace_slot *s = ttrace_ring_slot(r, last);

	if (head == pass_head) {
		return false;
	}
	uint64_t ts = __atomic_load_n(&s->word[0], __ATOMIC_RELAXED);
	uint64_t seq = __atomic_load_n(&s->word[1], __ATOMIC_RELAXED) & UINT32_MAX;

	return ts == TTRACE_TS_WRITING || seq != (last & UINT32_MAX);
}

bool ttrace_nest_step(void)
{
	if (!stepping) {
		return false;
	}
	if (steps++ == nest_at) {
		nest_fn();
		nested = true;
	}
	return true;
}

/* The ring test's nested events: an interrupt handler's. */
static void nest_events(void)
{
	uint8_t ctx = percpu_trace_ctx();

	inside += reserved_unwritten(&this_cpu()->trace_ring);
	percpu_set_trace_ctx(TTRACE_CTX_IRQ);
	TTRACE(irq_entry, EXC_DEBUG);
	TTRACE(irq_exit, EXC_DEBUG);
	percpu_set_trace_ctx(ctx);
}

/* The tracepoint stepped through, with TF set around the call. */
static __attribute__((noinline)) void stepped(uint64_t pass)
{
	TTRACE(test_tick, pass);
}

/*
 * One pass through fn(arg), stepped, with nest() run after step at
 * (UINT32_MAX: never). Interrupts masked by the caller.
 */
static void step_pass(void (*fn)(uint64_t), uint64_t arg, uint32_t at, void (*nest)(void))
{
	nest_at = at;
	nest_fn = nest;
	steps = 0;
	nested = false;
	/* relaxed: this CPU's own ring */
	pass_head = __atomic_load_n(&this_cpu()->trace_ring.state->head, __ATOMIC_RELAXED);
	stepping = true;
	cpu_set_trap_flag(true);
	fn(arg);
	cpu_set_trap_flag(false);
	stepping = false;
}

/* The control operations that would move the sites to the slow path, each made to fail. */
static const struct {
	const char *name;
	uint32_t op;
	uint64_t arg;
} failing_ops[] = {
    {"TRACK", TTRACE_OP_TRACK, NO_PID},
    {"STACK", TTRACE_OP_STACK, 1ull << TTRACE_KIND_user}, /* user events carry no stack */
    {"ECHO", TTRACE_OP_ECHO, ~(uint64_t)TTRACE_CAT_ALL},  /* no such category */
};

/*
 * Makes each of failing_ops fail, then steps through the tracepoint once:
 * it must take the straight steps a pass took before. Returns the name of
 * the first operation that did not fail or moved the sites, or NULL.
 */
static const char *failed_ops_move_sites(uint32_t straight)
{
	for (size_t i = 0; i < sizeof(failing_ops) / sizeof(failing_ops[0]); i++) {
		if (ttrace_control(failing_ops[i].op, failing_ops[i].arg) >= 0) {
			return failing_ops[i].name;
		}
		uint64_t flags = irq_save();
		step_pass(stepped, 0, UINT32_MAX, nest_events);
		irq_restore(flags);
		if (steps != straight) {
			printk(
			    "tracenest: a failed %s: %u steps through the tracepoint, %u before\n",
			    failing_ops[i].name, steps, straight);
			return failing_ops[i].name;
		}
	}
	return NULL;
}

static char echo_line[2][ECHO_LINE]; /* the stepped echo's, the nested one's */
static const char *echo_wrong;	     /* the first line that named the other program */

/* The echo of a test_tick of pid on cpu, into line; false if it does not name want. */
static bool echo_names(char *line, uint32_t pid, uint32_t cpu, const char *want)
{
	struct ttrace_record rec = {.ts = rdtsc() & TTRACE_TS_MASK,
				    .pid = pid,
				    .tid = pid,
				    .kind = TTRACE_KIND_test_tick,
				    .cpu = (uint8_t)cpu};
	static const char key[] = " comm=";
	const char *p = line;
	size_t n = strlen(want);

	echo_format(line, ECHO_LINE, &rec);
	while (*p && strncmp(p, key, sizeof(key) - 1)) {
		p++;
	}
	p += *p ? sizeof(key) - 1 : 0;
	return !strncmp(p, want, n) && p[n] == ' ';
}

/* The echo stepped through: this CPU's, of program A. */
static __attribute__((noinline)) void echo_stepped(uint64_t cpu)
{
	if (!echo_names(echo_line[0], ECHO_PID_A, (uint32_t)cpu, "alpha") && !echo_wrong) {
		echo_wrong = echo_line[0];
	}
}

/* The nested echo: another CPU's, of program B. */
static void echo_nested(void)
{
	if (!echo_names(echo_line[1], ECHO_PID_B, (this_cpu()->id + 1) % ncpus, "beta") &&
	    !echo_wrong) {
		echo_wrong = echo_line[1];
	}
}

/*
 * Another CPU's echo inside this CPU's, after every ECHO_STRIDE-th step
 * in turn. Returns the first line that named the wrong program, or NULL.
 */
static const char *echoes_mix_names(void)
{
	uint32_t passes = 0;

	ttrace_aux_name(TTRACE_AUX_PROC, ECHO_PID_A, "alpha");
	ttrace_aux_name(TTRACE_AUX_PROC, ECHO_PID_B, "beta");
	echo_wrong = NULL;
	do {
		uint64_t flags = irq_save();
		step_pass(echo_stepped, this_cpu()->id, passes++ * ECHO_STRIDE, echo_nested);
		irq_restore(flags);
		if (echo_wrong) {
			return echo_wrong;
		}
	} while (nested && passes < ECHO_PASSES);
	return NULL;
}

/* What the checks found; NULL: nothing wrong. */
struct findings {
	const char *wrong;
	uint64_t index; /* where */
	uint64_t events, ticks, nested;
	uint64_t ids;	  /* the pid and tid every event must carry (this CPU's, as stepped) */
	uint8_t cpu;	  /* this CPU */
	uint8_t tick_ctx; /* the context the stepped tracepoint ran in */
};

/* Keeps the first thing found wrong, and where. */
static void found(struct findings *f, const char *wrong, uint64_t index)
{
	if (!f->wrong) {
		f->wrong = wrong;
		f->index = index;
	}
}

/* One event, read in index order after prev (NULL for the first), against the rules. */
static void check_event(struct findings *f, const struct ttrace_record *prev,
			const struct ttrace_record *e)
{
	f->events++;
	if (prev && e->ts < prev->ts) {
		found(f, "a timestamp below the one before it", e->index);
	}
	if (e->cpu != f->cpu || e->pid != (uint32_t)f->ids || e->tid != f->ids >> 32 || e->ncont ||
	    e->data[1] || e->data[2] || e->data[3] || e->data[4]) {
		found(f, "an event with the wrong cpu, pid, tid or words", e->index);
	}
	if (e->kind == TTRACE_KIND_test_tick) {
		if (e->data[0] != f->ticks || e->ctx != f->tick_ctx) {
			found(f, "a tracepoint's event with the wrong word or context", e->index);
		}
		f->ticks++;
	} else if (e->kind == TTRACE_KIND_irq_entry || e->kind == TTRACE_KIND_irq_exit) {
		if (e->data[0] != EXC_DEBUG || e->ctx != TTRACE_CTX_IRQ) {
			found(f, "a nested event with the wrong word or context", e->index);
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
	struct ttrace_record prev;
	bool first = true;
	size_t n;

	ttrace_cursor_init(&c, from);
	c.end = to;
	while ((n = ttrace_ring_read(r, &c, batch, READ_BATCH)) > 0) {
		for (size_t i = 0; i < n; i++) {
			check_event(f, first ? NULL : &prev, &batch[i]);
			prev = batch[i];
			first = false;
		}
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
	struct findings f = {.ids = this_cpu()->trace_ids,
			     .cpu = (uint8_t)this_cpu()->id,
			     .tick_ctx = percpu_trace_ctx()};

	if (ttrace_control(TTRACE_OP_ENABLE, cats) < 0) {
		printk("tracenest: FAILED: no tracing to test\n");
		return;
	}
	/* Interrupts masked from the first count to the last: only the steps' events nest. */
	uint64_t flags = irq_save();
	int err = ttrace_ring_counts(r, &before);
	uint32_t passes = 0;
	inside = 0;
	do {
		passes++;
		step_pass(stepped, passes - 1, passes - 1, nest_events);
	} while (nested && passes < PASSES_MAX); /* the last pass took fewer steps than nest_at */
	uint32_t straight = steps; /* the last pass stepped through the whole tracepoint */
	err = err ? err : ttrace_ring_counts(r, &after);
	irq_restore(flags);
	const char *moved = err || nested ? NULL : failed_ops_move_sites(straight);
	ttrace_control(TTRACE_OP_DISABLE, cats & ~saved);
	if (err || nested) {
		printk("tracenest: FAILED: %s\n", err ? "no counts" : "steps without end");
		return;
	}
	if (moved) {
		printk("tracenest: FAILED: a failed %s left the tracepoints on the slow path\n",
		       moved);
		return;
	}
	check_ring(&f, r, before.head, after.head);
	if (f.ticks != passes || f.nested != 2 * (passes - 1) ||
	    f.events != after.head - before.head) {
		found(&f, "events missing or extra", after.head);
	}
	if (after.emitted - before.emitted != f.events || after.overwritten != before.overwritten ||
	    after.dropped != before.dropped) {
		found(&f, "a ledger that does not add up", after.head);
	}
	if (!inside) {
		found(&f, "no pass nested between a reservation and its commit", after.head);
	}
	if (f.wrong) {
		printk("tracenest: FAILED: %s (index %lu; %lu events, %lu tracepoints, %lu nested, "
		       "%u passes)\n",
		       f.wrong, f.index, f.events, f.ticks, f.nested, passes);
		return;
	}
	printk("tracenest: ok, %u passes through a tracepoint, an interrupt's events after the "
	       "k-th step of pass k, %u of them between its reserve and commit: %lu events, "
	       "timestamps in order, ledger exact\n",
	       passes, inside, f.events);
	printk("tracenest: a failed TRACK, STACK and ECHO each leave the tracepoint on its "
	       "straight path: %u steps\n",
	       straight);
	const char *wrong = ncpus > 1 ? echoes_mix_names() : NULL;
	if (wrong) {
		printk("tracenest: FAILED: another cpu's echo inside this one's: %s\n", wrong);
		return;
	}
	printk("tracenest: echoes of two cpus, one inside the other, each name their own "
	       "program\n");
}
