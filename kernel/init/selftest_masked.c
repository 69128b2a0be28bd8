/*
 * selftest=masked: cpu 1 runs with interrupts masked nearly all the time,
 * as a CPU caught in lock convoys does, yet never hangs: every MASKED_MS
 * by the TSC it unmasks for a moment and takes its pending tick. When the
 * TSC jumps STALL_MS or more between two of its reads, the host did not
 * run it meanwhile (a stall of the whole machine when the host stops
 * QEMU); it then stays masked AFTER_STALL_MS longer, so that the lockup
 * detector's first look after the stall finds it masked with its last
 * tick from before the stall, and says so once it unmasks, with the
 * longest jump of the stretch:
 *
 *   selftest masked: cpu 1 saw the clock jump 3012 ms, masked 300 ms more
 *
 * By the TSC it was silent for the whole stall; in the time the machine
 * ran, for less than half a second. The detector must count the latter
 * (watchdog.c). cpu 1 stays in its idle thread, so the scheduler takes it
 * for idle: a thread put on it runs once an idle CPU steals it.
 */
#include "init/selftest.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"

#define MASKED_CPU     1
#define MASKED_MS      100
#define STALL_MS       200 /* a jump: longer than a tick handler or a line on the console */
#define AFTER_STALL_MS 300 /* the first look after a stall is a tick or so away */

void selftest_masked(void)
{
	if (ncpus <= MASKED_CPU) {
		printk("selftest masked: needs 2 cpus or more\n");
		return;
	}
	printk("selftest masked: cpu %u runs with interrupts masked, unmasking every %u ms\n",
	       MASKED_CPU, MASKED_MS);
}

/*
 * One masked stretch, from *last, the TSC the previous one ended at (so
 * a jump in between is seen too), to where it leaves *last. Returns the
 * longest jump it saw, in ms (0 for none).
 */
static uint64_t masked_stretch(uint64_t *last, uint64_t tsc_ms)
{
	uint64_t end = *last + MASKED_MS * tsc_ms, jump = 0;

	irq_disable();
	for (uint64_t now = *last; now < end; *last = now) {
		now = rdtsc();
		if (now - *last >= STALL_MS * tsc_ms && now - *last > jump * tsc_ms) {
			jump = (now - *last) / tsc_ms;
			end = now + AFTER_STALL_MS * tsc_ms;
		}
	}
	irq_enable(); /* sti: a pending tick is taken after the next instruction */
	return jump;
}

void selftest_masked_ap(void)
{
	if (this_cpu()->id != MASKED_CPU) {
		return;
	}
	uint64_t tsc_ms = timer_tsc_hz() / 1000, last = rdtsc();
	for (;;) {
		uint64_t jump = masked_stretch(&last, tsc_ms);
		if (jump) {
			printk("selftest masked: cpu %u saw the clock jump %lu ms, masked %u ms "
			       "more\n",
			       MASKED_CPU, jump, AFTER_STALL_MS);
		}
	}
}
