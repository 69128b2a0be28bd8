/*
 * selftest=deadlock: two CPUs deadlock on purpose, so the lockup detector
 * (kernel/sched/watchdog.h) has something to find. The last two CPUs each
 * take one lock of a pair in an interrupt handler (interrupts masked),
 * wait until both hold theirs, then ask for the other's: ABBA. Neither
 * takes a timer interrupt again; only an NMI reaches them. The boot CPU
 * only kicks them (an IPI it does not wait for) and boots on, so the
 * shell still answers on the CPUs left.
 *
 * With inject=latewait and 4 CPUs, cpu 1 joins late: from its idle
 * thread, it masks interrupts and asks for lock A 0.7 of the watchdog's
 * limit after the kick. When the report comes, at the limit, it spins on
 * a lock with interrupts masked but has been silent for less than half
 * the limit, so it is shown but not named stuck: the state a CPU the host
 * ran late is in.
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

static struct spinlock lock_a = SPINLOCK_INIT;
static struct spinlock lock_b = SPINLOCK_INIT;
static uint32_t holding;	  /* [a] CPUs holding their first lock */
static uint64_t kicked_tsc; /* [a] when the boot CPU kicked the two; 0 before */

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
	if (ncpus < 3) {
		printk("selftest deadlock: needs 3 cpus or more (smp=3), has %u; not run\n", ncpus);
		return;
	}
	uint32_t a = ncpus - 2, b = ncpus - 1;
	idt_set_handler(VECTOR_SELFTEST, deadlock);
	printk("selftest deadlock: cpu %u takes lock A (%p) then B (%p), cpu %u B then A, "
	       "interrupts masked\n",
	       a, (void *)&lock_a, (void *)&lock_b, b);
	/* release: pairs with the late waiter's acquire load (selftest_deadlock_ap()) */
	__atomic_store_n(&kicked_tsc, rdtsc(), __ATOMIC_RELEASE);
	apic_send_ipi(cpus[a].apic_id, VECTOR_SELFTEST);
	apic_send_ipi(cpus[b].apic_id, VECTOR_SELFTEST);
}

void selftest_deadlock_ap(void)
{
	struct cpu *c = this_cpu();

	/* cpu 1: ncpus, still counting the CPUs as they start, is final only at the kick. */
	if (kopts.inject != INJECT_LATEWAIT || c->id != 1) {
		return;
	}
	uint64_t kicked;
	/* acquire: pairs with the release store in selftest_deadlock(). Interrupts on: ticks come. */
	while (!(kicked = __atomic_load_n(&kicked_tsc, __ATOMIC_ACQUIRE))) {
		cpu_relax();
	}
	if (ncpus < 4) {
		printk("selftest deadlock: a late cpu 1 needs 4 cpus (smp=4), has %u; not run\n",
		       ncpus);
		return;
	}
	uint64_t start = kicked + kopts.watchdog_s * timer_tsc_hz() / 10 * 7;
	while (rdtsc() < start) {
		cpu_relax();
	}
	printk("selftest deadlock: cpu 1, late, asks for lock A too, interrupts masked\n");
	irq_disable();
	spin_lock(&lock_a);
	panic("selftest deadlock: cpu 1 took lock A");
}
