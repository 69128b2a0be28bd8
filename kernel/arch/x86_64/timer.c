/*
 * timer: PIT channel 2 is the reference (it has a known 1.193182 MHz
 * input and its output can be polled through port 0x61 without an
 * interrupt). One countdown of CALIBRATE_MS milliseconds is timed with both
 * the TSC and the LAPIC timer; under emulation both come from the host clock,
 * so one window is as good as several.
 */
#include "arch/x86_64/timer.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "lib/panic.h"
#include "sched/sched.h"
#include "sched/watchdog.h"
#include "trace/ktrace.h"
#include "trace/profile.h"
#include "trace/wake.h"

#define PIT_HZ		1193182
#define PIT_CH2_DATA	0x42
#define PIT_COMMAND	0x43
#define PIT_CH2_ONESHOT 0xb0 /* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B		0x61 /* NMI status and control */
#define PORT_B_GATE2	0x01
#define PORT_B_SPEAKER	0x02
#define PORT_B_OUT2	0x20
#define CALIBRATE_MS	20

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

void timer_calibrate(void)
{
	uint32_t pit_count = PIT_HZ * CALIBRATE_MS / 1000;
	uint8_t portb = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);

	outb(PORT_B, portb);
	outb(PIT_COMMAND, PIT_CH2_ONESHOT);
	outb(PIT_CH2_DATA, pit_count & 0xff);
	outb(PIT_CH2_DATA, pit_count >> 8);

	apic_timer_oneshot(UINT32_MAX);
	uint32_t apic_start = apic_timer_current();
	uint64_t tsc_start = rdtsc();
	outb(PORT_B, portb | PORT_B_GATE2); /* rising gate edge starts the count */
	while (!(inb(PORT_B) & PORT_B_OUT2)) {
		cpu_relax();
	}
	uint64_t tsc_end = rdtsc();
	uint32_t apic_end = apic_timer_current();
	outb(PORT_B, portb);

	tsc_hz = (tsc_end - tsc_start) * 1000 / CALIBRATE_MS;
	uint64_t apic_hz = (uint64_t)(apic_start - apic_end) * 1000 / CALIBRATE_MS;
	lapic_per_tick = (uint32_t)(apic_hz / TIMER_HZ);
	if (!tsc_hz || !lapic_per_tick) {
		panic("timer: calibration failed (tsc %lu Hz, lapic %lu Hz)", tsc_hz, apic_hz);
	}
	tsc_boot = tsc_start;
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
