/*
 * bench: what a tracepoint costs, measured in one boot (selftest=tracebench,
 * run by `make bench`). The same loop runs three times: once with no
 * tracepoint in it (what a TTRACE=0 build leaves), once with a tracepoint
 * whose category is off, once with it on. Each pass is timed in TSC cycles
 * and the ratios are printed; nothing is asserted on time.
 */
#include "trace/bench.h"

#include "arch/x86_64/cpu.h"
#include "lib/printk.h"
#include "trace/ktrace.h"

#define BENCH_ROUNDS 200000

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

/* Cycles per round, in hundredths. */
static uint64_t per_round(uint64_t cycles)
{
	return cycles * 100 / BENCH_ROUNDS;
}

static void print_ratio(const char *what, uint64_t a, uint64_t b)
{
	printk("tracebench: %s: %lu.%02lu\n", what, a / b, a * 100 / b % 100);
}

void ttrace_bench(void)
{
	uint64_t saved = ttrace_mask;

	ttrace_control(TTRACE_OP_DISABLE, TTRACE_CAT(TEST));
	loop_plain(BENCH_ROUNDS / 10); /* warm up caches and the TLB */
	uint64_t plain = loop_plain(BENCH_ROUNDS);
	uint64_t off = loop_traced(BENCH_ROUNDS);
	ttrace_control(TTRACE_OP_ENABLE, TTRACE_CAT(TEST));
	uint64_t on = loop_traced(BENCH_ROUNDS);
	ttrace_control(TTRACE_OP_DISABLE, TTRACE_CAT(TEST) & ~saved);
	ttrace_control(TTRACE_OP_CLEAR, 0);

	printk("tracebench: %u rounds; cycles per round x100: compiled out %lu, "
	       "disabled %lu, enabled %lu\n",
	       BENCH_ROUNDS, per_round(plain), per_round(off), per_round(on));
	print_ratio("disabled / compiled out", off, plain);
	print_ratio("enabled / disabled", on, off);
}
