/*
 * selftest=deadlock: two CPUs deadlock on purpose, so the lockup detector
 * (kernel/sched/watchdog.h) has something to find. The last two CPUs each
 * take one lock of a pair in an interrupt handler (interrupts masked),
 * wait until both hold theirs, then ask for the other's: ABBA. Neither
 * takes a timer interrupt again; only an NMI reaches them. The boot CPU
 * only kicks them (an IPI it does not wait for) and boots on, so the
 * shell still answers on the CPUs left.
 *
 * With inject=latewait and 4 CPUs or more, cpu 1 joins the hang after it
 * began: from its idle thread, it masks interrupts and asks for lock A
 * 0.7 of the watchdog's limit after the kick. When the first report
 * comes, at the limit, it spins on a lock with interrupts masked but has
 * been silent for less than half the limit, so it is shown, not named
 * stuck (a later report names it).
 */
#include "init/selftest.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "init/options.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "lib/spinlock.h"

#define LATE_CPU 1
/* Tenths of the limit: past the report's look at the half-limit's suspects, before the limit. */
#define LATE_TENTHS 7
#define LATE_NEVER  UINT64_MAX

static struct spinlock lock_a = SPINLOCK_INIT;
static struct spinlock lock_b = SPINLOCK_INIT;
static uint32_t holding;    /* [a] CPUs holding their first lock */
static uint64_t late_start; /* [a] TSC at which LATE_CPU joins, or LATE_NEVER; 0 undecided */

static void deadlock(struct trap_frame *f)
{
	(void)f;
	bool first = this_cpu()->id == ncpus - 2;
	struct spinlock *mine = first ? &lock_a : &lock_b;
	struct spinlock *theirs = first ? &lock_b : &lock_a;

	spin_lock(mine);
	/* acq_rel, acquire: neither asks for the other's lock before both hold theirs */
	__atomic_add_fetch(&holding, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&holding, __ATOMIC_ACQUIRE) < 2) {
		cpu_relax();
	}
	spin_lock(theirs);
	panic("selftest deadlock: cpu %u took both locks", this_cpu()->id);
}

void selftest_deadlock(void)
{
	bool late = kopts.inject == INJECT_LATEWAIT && ncpus >= 4;

	if (kopts.inject == INJECT_LATEWAIT && !late) {
		printk("selftest deadlock: a late cpu %u needs 4 cpus or more (smp=4), has %u; "
		       "not run\n",
		       LATE_CPU, ncpus);
	}
	/*
	 * Decided before any return, so that a waiting LATE_CPU goes on.
	 * release: pairs with the acquire load in selftest_deadlock_ap().
	 */
	__atomic_store_n(&late_start,
			 late ? rdtsc() + kopts.watchdog_s * timer_tsc_hz() / 10 * LATE_TENTHS
			      : LATE_NEVER,
			 __ATOMIC_RELEASE);
	if (ncpus < 3) {
		printk("selftest deadlock: needs 3 cpus or more (smp=3), has %u; not run\n", ncpus);
		return;
	}
	uint32_t a = ncpus - 2, b = ncpus - 1;
	idt_set_handler(VECTOR_SELFTEST, deadlock);
	printk("selftest deadlock: cpu %u takes lock A (%p) then B (%p), cpu %u B then A, "
	       "interrupts masked\n",
	       a, (void *)&lock_a, (void *)&lock_b, b);
	apic_send_ipi(cpus[a].apic_id, VECTOR_SELFTEST);
	apic_send_ipi(cpus[b].apic_id, VECTOR_SELFTEST);
}

void selftest_deadlock_ap(void)
{
	uint64_t start;

	/* Only LATE_CPU waits, only with inject=latewait: the others go on to idle. */
	if (kopts.inject != INJECT_LATEWAIT || this_cpu()->id != LATE_CPU) {
		return;
	}
	/*
	 * The boot CPU decides, once ncpus is final. acquire: pairs with the
	 * release store in selftest_deadlock(). Interrupts on: ticks come.
	 */
	while (!(start = __atomic_load_n(&late_start, __ATOMIC_ACQUIRE))) {
		cpu_relax();
	}
	if (start == LATE_NEVER) {
		return;
	}
	while (rdtsc() < start) {
		cpu_relax();
	}
	printk("selftest deadlock: cpu %u, late, asks for lock A too, interrupts masked\n",
	       LATE_CPU);
	irq_disable();
	spin_lock(&lock_a);
	panic("selftest deadlock: cpu %u took lock A", LATE_CPU);
}
