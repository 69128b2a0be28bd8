/*
 * echo: the rate limit is a count of lines in the current second since
 * boot, kept with atomics so every CPU's tracepoints share it without a
 * lock: the first event of a new second restarts the count and reports
 * what the seconds before it skipped. Each CPU decodes its lines with a
 * decoder of its own: a decoder caches program names as it looks them up
 * and is not safe to share (common/trace_decoder.h), and one shared by
 * every CPU printed a name another CPU's lookup had half replaced.
 */
#include "trace/echo.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/timer.h"
#include "common/trace_decoder.h"
#include "common/trace_format.h"
#include "lib/printk.h"

#define LINE_MAX 256

static uint64_t second;	 /* [a] the second since boot the count is for */
static uint32_t lines;	 /* [a] lines echoed in it */
static uint64_t skipped; /* [a] events not echoed since the last report */

/* [I] set up, then each used by its own CPU only, interrupts masked */
static struct ttrace_decoder decoders[TTRACE_MAX_CPUS];

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

void echo_init(const struct ttrace_area *a)
{
	for (uint32_t i = 0; i < a->hdr->num_cpus; i++) {
		/* No cache of user-event definitions: user events are echoed raw. */
		ttrace_decoder_init(&decoders[i], a, NULL);
	}
}

int echo_format(char *buf, size_t size, const struct ttrace_record *rec)
{
	uint64_t flags = irq_save();
	int n = ttrace_format_event(buf, size, rec, &decoders[rec->cpu]);
	irq_restore(flags);
	return n;
}

void echo_event(const struct ttrace_record *rec)
{
	char line[LINE_MAX];

	new_second(rec->ts);
	if (__atomic_fetch_add(&lines, 1, __ATOMIC_RELAXED) >= TTRACE_ECHO_RATE) {
		__atomic_fetch_add(&skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	echo_format(line, sizeof(line), rec);
	printk("%s\n", line);
}

void echo_report(uint64_t now_tsc)
{
	/* relaxed: a report a tick late is as good */
	if (__atomic_load_n(&skipped, __ATOMIC_RELAXED)) {
		new_second(now_tsc);
	}
}
