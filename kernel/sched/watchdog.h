/*
 * watchdog: lockup detection. A CPU makes progress when it schedules or
 * goes back to user mode (schedule(), sched_return_to_user() set its
 * progressed flag), or idles. Each CPU's timer interrupt records its own
 * progress: how many ticks it took since it saw some. When none was seen
 * for a quarter of the limit, the tick also asks for a reschedule, so a
 * thread that only makes system calls (whose return skips the scheduler)
 * shows its progress at the next one.
 *
 * Silence is counted in the time a CPU ran, not by the TSC, which under
 * TCG follows the host's clock and so also runs while the host does not
 * run the vCPU. A CPU with interrupts on is stuck when its own ticks,
 * ttrace.watchdog= seconds of them (default 10; 0 turns the detector off),
 * saw no progress. A CPU with interrupts masked takes no tick: one that
 * took none while another CPU took that many is only suspected (a stall of
 * the whole machine, as when the host stops QEMU, counts for none of it),
 * and called stuck when it answers the detector's NMI three times, a
 * tick's period apart, with interrupts masked and still no tick taken (a
 * CPU the host merely did not run takes its pending tick as soon as it
 * runs and unmasks). The CPU that sees it first reports, once per stall,
 * on the console, naming with it every CPU so found silent for half as
 * long (a hang seldom catches its CPUs at the same instant); a report that
 * finds no CPU stuck is not made:
 *
 *   WATCHDOG: cpu 2 cpu 3 stuck: no schedule or return to user (ttrace.watchdog=10)
 *   cpu 0: pid 3 tid 4 (traced), rip 0x..., interrupts on
 *   stack walk: ...
 *   cpu 2: kernel tid 3 (the idle thread, not idling), rip 0x..., interrupts masked,
 *          spinning on lock 0x... held by cpu 3 (tid 4), stuck for 10.004 s  (one line)
 *   stack walk: ...
 *   flight recorder: last 16 events on cpu 0 ... (every CPU)
 *   WATCHDOG: going on (ttrace.watchdog_panic=1 panics instead)
 *
 * (with, when the flight recorders held nothing, a line saying so and how
 * to boot with ttrace= to fill them).
 *
 * Every other CPU's state is taken by an NMI through its local APIC (which
 * reaches a CPU spinning with interrupts masked): its interrupted
 * instruction pointer, frame pointer and flags, its running thread, the
 * spinlock it waits for and the CPU that lock's owner field names
 * (spinlock.h), whose thread is the holder. A CPU is called idle only
 * when it idles: its idle thread runs with interrupts on, spinning on no
 * lock, and the CPU is not stuck (a stuck CPU may be stuck in an
 * interrupt of its idle thread). The stack walk is the panic block's
 * (panic_stack_walk()). A CPU that does not answer the NMI within
 * WATCHDOG_NMI_WAIT_MS is said so; its NMI, when it comes, is counted and
 * ignored. Then the machine goes on, the stuck CPUs as they were, or
 * panics with ttrace.watchdog_panic=1.
 */
#ifndef SPOOR_SCHED_WATCHDOG_H
#define SPOOR_SCHED_WATCHDOG_H

#include <stdbool.h>

#include "arch/x86_64/idt.h"

/* What the lockup detector knows of a CPU now. */
struct watchdog_cpu {
	uint64_t stuck_ns;  /* no progress for this long, past half the limit; else (or off) 0 */
	bool irqs_masked;   /* stuck, and it has taken no timer interrupt for as long */
	uint32_t late_nmis; /* the detector's NMIs it took after the report stopped waiting */
};

/* From the timer interrupt, f its frame: records progress, looks at the others. */
void watchdog_tick(const struct trap_frame *f);

/*
 * From the NMI handler: true if the NMI was the detector's, answered, or
 * come after the report stopped waiting for it (counted, and ignored).
 */
bool watchdog_nmi(const struct trap_frame *f);

/* Fills *s for the CPU of id cpu (for `cpus`: sys_info); all 0 with the detector off. */
void watchdog_cpu_state(uint32_t cpu, struct watchdog_cpu *s);

#endif
