/*
 * timer: PIT channel 2 is the reference (it has a known 1.193182 MHz
 * input and its output can be polled through port 0x61 without an
 * interrupt). Countdowns of CALIBRATE_MS milliseconds are timed with both
 * the TSC and the LAPIC timer, and the median of CALIBRATE_WINDOWS is
 * kept. Under emulation all three come from the host's clock, but a
 * loaded host may leave the vCPU unrun between the count's start and the
 * first reading (a window far too short: QEMU's PIT counts from the
 * write, whatever the gate) or between the end and the last reading (too
 * long): one window came out at 4 MHz in make soak, and the boot then
 * panicked with no timer interrupts. A median of five is wrong only if
 * three windows are.
 */
#include "arch/x86_64/timer.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "init/options.h"
#include "lib/panic.h"
#include "sched/sched.h"
#include "sched/watchdog.h"
#include "trace/ktrace.h"
#include "trace/profile.h"
#include "trace/wake.h"

#define PIT_HZ		  1193182
#define PIT_CH2_DATA	  0x42
#define PIT_COMMAND	  0x43
#define PIT_CH2_ONESHOT	  0xb0 /* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B		  0x61 /* NMI status and control */
#define PORT_B_GATE2	  0x01
#define PORT_B_SPEAKER	  0x02
#define PORT_B_OUT2	  0x20
#define CALIBRATE_MS	  20
#define CALIBRATE_WINDOWS 5

#define NS_SHIFT 32

static uint64_t tsc_hz;		/* [I] after timer_calibrate() */
static uint64_t tsc_boot;	/* [I] */
static uint64_t ns_per_cycle;	/* [I] nanoseconds per cycle << NS_SHIFT */
static uint32_t lapic_per_tick; /* [I] LAPIC timer counts per 1/TIMER_HZ s */

static void timer_tick(struct trap_frame *f)
{
	/* At every interrupt, the faster ones too: they are there for it (wake.h). */
	ttrace_wake_tick();
	if (!profile_tick(f)) {
		return; /* an interrupt for the profiler or the trace wake-up alone */
	}
	uint64_t tick = __atomic_add_fetch(&this_cpu()->ticks, 1, __ATOMIC_RELAXED);

	TTRACE(irq_timer, tick);
	watchdog_tick(f);
	if (!this_cpu()->id) {
		ttrace_tick();
	}
	sched_tick();
}

/* Loads PIT channel 2 with one countdown of CALIBRATE_MS, its gate low (portb). */
static void pit_load(uint8_t portb)
{
	uint32_t pit_count = PIT_HZ * CALIBRATE_MS / 1000;

	outb(PORT_B, portb);
	outb(PIT_COMMAND, PIT_CH2_ONESHOT);
	outb(PIT_CH2_DATA, pit_count & 0xff);
	outb(PIT_CH2_DATA, pit_count >> 8);
}

/* Raises the gate (a rising edge starts a loaded count) and waits for the count to run out. */
static void pit_run_out(uint8_t portb)
{
	outb(PORT_B, portb | PORT_B_GATE2);
	while (!(inb(PORT_B) & PORT_B_OUT2)) {
		cpu_relax();
	}
}

/*
 * Times countdown i of CALIBRATE_MS: the TSC's and the LAPIC timer's
 * counts over it. inject=calstall reads the first too late to see any of
 * it and the second a whole countdown too late, as a host that does not
 * run this vCPU would.
 */
static void time_window(unsigned i, uint64_t *tsc, uint64_t *apic)
{
	bool stall = kopts.inject == INJECT_CALSTALL;
	uint8_t portb = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);

	pit_load(portb);
	if (stall && i == 0) {
		pit_run_out(portb); /* the gate stays high: no new edge starts it again below */
	}
	apic_timer_oneshot(UINT32_MAX);
	uint32_t apic_start = apic_timer_current();
	uint64_t tsc_start = rdtsc();
	pit_run_out(portb);
	if (stall && i == 1) {
		pit_load(portb);
		pit_run_out(portb);
	}
	uint64_t tsc_end = rdtsc();
	uint32_t apic_end = apic_timer_current();
	outb(PORT_B, portb);
	*tsc = tsc_end - tsc_start;
	*apic = apic_start - apic_end;
}

/* The median of v[0..CALIBRATE_WINDOWS), which it sorts. */
static uint64_t median(uint64_t *v)
{
	for (unsigned i = 1; i < CALIBRATE_WINDOWS; i++) {
		for (unsigned j = i; j && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	return v[CALIBRATE_WINDOWS / 2];
}

void timer_calibrate(void)
{
	uint64_t tsc[CALIBRATE_WINDOWS], apic[CALIBRATE_WINDOWS];

	tsc_boot = rdtsc();
	for (unsigned i = 0; i < CALIBRATE_WINDOWS; i++) {
		time_window(i, &tsc[i], &apic[i]);
	}
	tsc_hz = median(tsc) * 1000 / CALIBRATE_MS;
	uint64_t apic_hz = median(apic) * 1000 / CALIBRATE_MS;
	lapic_per_tick = (uint32_t)(apic_hz / TIMER_HZ);
	if (!tsc_hz || !lapic_per_tick) {
		panic("timer: calibration failed (tsc %lu Hz, lapic %lu Hz)", tsc_hz, apic_hz);
	}
	ns_per_cycle = (1000000000ull << NS_SHIFT) / tsc_hz;
	idt_set_handler(VECTOR_TIMER, timer_tick);
}

void timer_start_cpu(void)
{
	apic_timer_periodic(VECTOR_TIMER, lapic_per_tick);
}

void timer_set_rate(uint32_t hz)
{
	apic_timer_periodic(VECTOR_TIMER, (uint32_t)((uint64_t)lapic_per_tick * TIMER_HZ / hz));
}

uint64_t timer_tsc_hz(void)
{
	return tsc_hz;
}

uint64_t timer_boot_tsc(void)
{
	return tsc_boot;
}

uint64_t timer_now_ns(void)
{
	uint64_t cycles = rdtsc() - tsc_boot;

	/*
	 * A multiply instead of two divisions: the scheduler asks at every
	 * switch. The 128-bit product cannot overflow; ns_per_cycle is short
	 * by under one part in 10^9 for a TSC below 4 GHz, which makes the
	 * clock lose under a millisecond in 11 days.
	 */
	return (uint64_t)(((unsigned __int128)cycles * ns_per_cycle) >> NS_SHIFT);
}

void timer_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + tsc_hz / 1000000 * us;

	while (rdtsc() < end) {
		cpu_relax();
	}
}
