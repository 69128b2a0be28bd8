/*
 * echo: the rate limit is a count of lines in the current second since
 * boot, kept with atomics so every CPU's tracepoints share it without a
 * lock: the first event of a new second restarts the count and reports
 * what the seconds before it skipped.
 */
#include "trace/echo.h"

#include "arch/x86_64/timer.h"
#include "common/trace_format.h"
#include "lib/printk.h"

#define LINE_MAX 256

static uint64_t second;	 /* [a] the second since boot the count is for */
static uint32_t lines;	 /* [a] lines echoed in it */
static uint64_t skipped; /* [a] events not echoed since the last report */

/* Moves the count to the second of tsc, reporting what was skipped before it. */
static void new_second(uint64_t tsc)
{
	uint64_t hz = timer_tsc_hz();
	uint64_t now = hz ? (tsc - timer_boot_tsc()) / hz : 0;
	/* relaxed: the compare-and-swap alone decides who starts the new second */
	uint64_t was = __atomic_load_n(&second, __ATOMIC_RELAXED);

	if (now <= was || !__atomic_compare_exchange_n(&second, &was, now, false, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED)) {
		return;
	}
	__atomic_store_n(&lines, 0, __ATOMIC_RELAXED);
	uint64_t n = __atomic_exchange_n(&skipped, 0, __ATOMIC_RELAXED);
	if (n) {
		printk("ttrace: echo skipped %lu events\n", n);
	}
}

void echo_event(const struct ttrace_record *rec, struct ttrace_decoder *d)
{
	char line[LINE_MAX];

	new_second(rec->ts);
	if (__atomic_fetch_add(&lines, 1, __ATOMIC_RELAXED) >= TTRACE_ECHO_RATE) {
		__atomic_fetch_add(&skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	ttrace_format_event(line, sizeof(line), rec, d);
	printk("%s\n", line);
}

void echo_report(uint64_t now_tsc)
{
	/* relaxed: a report a tick late is as good */
	if (__atomic_load_n(&skipped, __ATOMIC_RELAXED)) {
		new_second(now_tsc);
	}
}
