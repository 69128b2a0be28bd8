/*
 * spinlock: ticket locks that disable interrupts while held.
 *
 * A lock taken with spin_lock_irqsave() may be taken from interrupt
 * handlers too. Holding a spinlock never blocks and never waits for
 * another CPU to take an interrupt (no cross-CPU call while held).
 *
 * A CPU that has to wait for a lock says which in its struct cpu
 * (spinning_on), and the CPU holding a lock says so in it (owner), so the
 * lockup detector (kernel/sched/watchdog.h) can name the lock a stuck CPU
 * waits for and who holds it; the uncontended path stays inline.
 */
#ifndef SPOOR_LIB_SPINLOCK_H
#define SPOOR_LIB_SPINLOCK_H

#include <stdint.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpu_id.h"

struct spinlock {
	uint32_t next;	  /* [a] next ticket to hand out */
	uint32_t serving; /* [a] ticket that owns the lock */
	uint32_t owner;	  /* [a] the id + 1 of the CPU holding it, 0 while free: for reports */
};

#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		0, 0, 0                                                                            \
	}

/* spin_lock()'s wait for ticket, with this CPU's spinning_on set to l meanwhile. */
void spin_lock_wait(struct spinlock *l, uint32_t ticket);

/* The owner a lock taken by the CPU running this records: its id + 1, one load through %gs. */
static inline uint32_t spin_owner_self(void)
{
	return cpu_id_self() + 1;
}

static inline void spin_lock(struct spinlock *l)
{
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	/* acquire: pairs with the release store in spin_unlock() */
	if (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket) {
		spin_lock_wait(l, ticket);
	}
	/* relaxed: only reports read it, racily (watchdog.c) */
	__atomic_store_n(&l->owner, spin_owner_self(), __ATOMIC_RELAXED);
}

static inline int spin_trylock(struct spinlock *l)
{
	uint32_t serving = __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
	uint32_t expected = serving;

	/* acquire on success: pairs with the release store in spin_unlock() */
	if (!__atomic_compare_exchange_n(&l->next, &expected, serving + 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		return 0;
	}
	/* relaxed: as in spin_lock() */
	__atomic_store_n(&l->owner, spin_owner_self(), __ATOMIC_RELAXED);
	return 1;
}

static inline void spin_unlock(struct spinlock *l)
{
	/* relaxed: as in spin_lock(); the next owner's store follows the release below */
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	/* release: pairs with the acquire load in spin_lock() */
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif
