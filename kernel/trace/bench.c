/*
 * bench: what a tracepoint costs, measured in one boot (selftest=tracebench,
 * run by `make bench`). The same loop runs three times: once with no
 * tracepoint in it (what a TTRACE=0 build leaves), once with a tracepoint
 * whose category is off, once with it on. Each is timed in TSC cycles and
 * the ratios are printed; nothing is asserted on time.
 *
 * Under emulation the host steals time from the guest in bursts, and
 * stolen time only ever adds cycles; and QEMU translates code the first
 * time it runs (again after the tracepoint is patched). So each variant
 * runs untimed once, then in batches, and reports its best batch; the
 * batches of the two cheap variants alternate, so that a busy stretch of
 * the host hits them alike.
 *
 * Then the enabled loop again with a filter of two terms on its kind
 * (abi/trace_pred.h), twice one that rejects every event (at its first
 * term, and at its second) and once one that keeps every one: what a
 * filtered kind costs on the filtered path (trace/tracepoint.h);
 * and with a count trigger of the same two terms, once one that never
 * fires and once one that fires on every event (abi/trace_pred.h,
 * TRIGGERS): what a kind with a trigger costs, beside the filter. Last,
 * a filter that reads comm, whose code finds the name first
 * (trace/pred_code.h).
 */
#include "trace/bench.h"

#include "arch/x86_64/cpu.h"
#include "common/trace_pred_parse.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "trace/ktrace.h"

#define BENCH_ROUNDS  200000 /* per variant */
#define BENCH_BATCHES 20
#define BATCH_ROUNDS  (BENCH_ROUNDS / BENCH_BATCHES)

static uint64_t sink; /* keeps the loops from being optimised away */

static __attribute__((noinline)) uint64_t loop_plain(uint64_t n)
{
	uint64_t start = rdtsc();

	for (uint64_t i = 0; i < n; i++) {
		__atomic_store_n(&sink, i, __ATOMIC_RELAXED);
	}
	return rdtsc() - start;
}

static __attribute__((noinline)) uint64_t loop_traced(uint64_t n)
{
	uint64_t start = rdtsc();

	for (uint64_t i = 0; i < n; i++) {
		__atomic_store_n(&sink, i, __ATOMIC_RELAXED);
		TTRACE(test_tick, i);
	}
	return rdtsc() - start;
}

/* Cycles per round of a batch, in hundredths. */
static uint64_t per_round(uint64_t cycles)
{
	return cycles * 100 / BATCH_ROUNDS;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void print_ratio(const char *what, uint64_t a, uint64_t b)
{
	printk("tracebench: %s: %lu.%02lu\n", what, a / b, a * 100 / b % 100);
}

/*
 * Sets test_tick's filter to prog (trigger NULL), or its trigger to
 * trigger with prog's program; removes it for prog NULL. 0 or -E*.
 */
static int set(const struct ttrace_pred_prog *prog, uint32_t trigger)
{
	static struct ttrace_trigger t;

	if (!trigger) {
		return ttrace_filter(TTRACE_KIND_test_tick, prog ? prog->insn : NULL,
				     prog ? prog->n : 0);
	}
	t = (struct ttrace_trigger){.action = prog ? trigger : TTRACE_TRIG_NONE};
	if (prog) {
		t.n = prog->n;
		memcpy(t.insn, prog->insn, prog->n * sizeof(prog->insn[0]));
	}
	return ttrace_trigger(TTRACE_TRIG_SET, TTRACE_KIND_test_tick, &t);
}

/*
 * The enabled loop's best batch with test_tick filtered by pred (two
 * terms), or with a trigger of action on pred (trigger not 0), in
 * cycles; UINT64_MAX if it could not be set.
 */
static uint64_t filtered(const char *pred, uint32_t trigger)
{
	static struct ttrace_pred_prog prog;
	char why[64];
	uint64_t best = UINT64_MAX;

	if (ttrace_pred_compile(pred, TTRACE_KIND_test_tick, 0, &prog, why, sizeof(why))) {
		printk("tracebench: cannot compile '%s': %s\n", pred, why);
		return best;
	}
	int err = set(&prog, trigger);
	if (err) {
		printk("tracebench: cannot set '%s': %d\n", pred, err);
		return best;
	}
	loop_traced(BATCH_ROUNDS);
	for (int i = 0; i < BENCH_BATCHES; i++) {
		best = min_u64(best, loop_traced(BATCH_ROUNDS));
	}
	(void)set(NULL, trigger);
	return best;
}

void ttrace_bench(void)
{
	uint64_t saved = ttrace_mask;
	uint64_t plain = UINT64_MAX, off = UINT64_MAX, on = UINT64_MAX;

	ttrace_control(TTRACE_OP_DISABLE, TTRACE_CAT(TEST));
	loop_plain(BATCH_ROUNDS);
	loop_traced(BATCH_ROUNDS);
	for (int i = 0; i < BENCH_BATCHES; i++) {
		plain = min_u64(plain, loop_plain(BATCH_ROUNDS));
		off = min_u64(off, loop_traced(BATCH_ROUNDS));
	}
	ttrace_control(TTRACE_OP_ENABLE, TTRACE_CAT(TEST));
	loop_traced(BATCH_ROUNDS);
	for (int i = 0; i < BENCH_BATCHES; i++) {
		on = min_u64(on, loop_traced(BATCH_ROUNDS));
	}
	/*
	 * two terms each: the kernel's form of a filter stops at the first
	 * term that settles it (common/trace_pred_jump.h), so a rejection
	 * is measured at the first term and at the second, the most it costs
	 */
	uint64_t rejects = filtered("seq > 0xffffffffffff && cpu <= 7", 0);
	uint64_t rejects_late = filtered("seq < 0xffffffffffff && cpu > 7", 0);
	uint64_t keeps = filtered("seq < 0xffffffffffff && cpu <= 7", 0);
	/* a count trigger of the same two terms: every event is stored, fired on or not */
	uint64_t idle = filtered("seq > 0xffffffffffff && cpu <= 7", TTRACE_TRIG_COUNT);
	uint64_t fires = filtered("seq < 0xffffffffffff && cpu <= 7", TTRACE_TRIG_COUNT);
	/* a name: the code walks to the process's first (trace/pred_code.h) */
	uint64_t by_name = filtered("comm == \"tracebench\" || cpu > 7", 0);
	ttrace_control(TTRACE_OP_DISABLE, TTRACE_CAT(TEST) & ~saved);
	ttrace_control(TTRACE_OP_CLEAR, 0);

	printk("tracebench: %u rounds in batches of %u, the best batch's cycles per round x100: "
	       "compiled out %lu, disabled %lu, enabled %lu\n",
	       BENCH_ROUNDS, BATCH_ROUNDS, per_round(plain), per_round(off), per_round(on));
	print_ratio("disabled / compiled out", off, plain);
	print_ratio("enabled / disabled", on, off);
	printk("tracebench: with a filter of two terms on the kind, the best batch's cycles per "
	       "round x100: rejecting %lu, rejecting at the second term %lu, keeping %lu\n",
	       per_round(rejects), per_round(rejects_late), per_round(keeps));
	printk("tracebench: with a count trigger of two terms on the kind, the best batch's "
	       "cycles per round x100: not firing %lu, firing %lu\n",
	       per_round(idle), per_round(fires));
	printk("tracebench: with a filter of two terms that reads comm, the best "
	       "batch's cycles per round x100: by name rejecting %lu\n",
	       per_round(by_name));
}
