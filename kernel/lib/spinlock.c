/*
 * spinlock: the contended wait (spinlock.h), out of line: it marks the
 * lock in this CPU's spinning_on for the lockup detector's report.
 */
#include "lib/spinlock.h"

#include "arch/x86_64/percpu.h"

void spin_lock_wait(struct spinlock *l, uint32_t ticket)
{
	struct cpu *c = this_cpu();
	/* An interrupt handler may wait for a lock inside our wait: it puts ours back. */
	const struct spinlock *outer = __atomic_load_n(&c->spinning_on, __ATOMIC_RELAXED);

	/* relaxed: the detector's report only prints it, from a snapshot taken in an NMI */
	__atomic_store_n(&c->spinning_on, l, __ATOMIC_RELAXED);
	/* acquire: pairs with the release store in spin_unlock() */
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket) {
		cpu_relax();
	}
	__atomic_store_n(&c->spinning_on, outer, __ATOMIC_RELAXED);
}
