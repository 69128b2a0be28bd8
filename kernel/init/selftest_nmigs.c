/*
 * selftest=nmigs: an NMI that lands where the kernel runs with the user's
 * GS base, between syscall_entry and its swapgs or between trap_return's
 * swapgs and its iretq (isr.S). Interrupts are masked there, NMIs are
 * not, and the lockup detector's come at any instruction. The boot CPU
 * puts the user's base in itself, interrupts masked, sends itself an NMI
 * and waits for it there, as that code would have; the handler must find
 * this CPU's own per-CPU data, not read it at the user's base (0), which
 * faulted inside the NMI handler, and the machine triple-faulted.
 *
 * Between the two swapgs nothing here may reach per-CPU data: the NMI's
 * send and the wait use globals and the local APIC alone.
 */
#include "init/selftest.h"

#include <stdbool.h>

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"
#include "trace/func.h"

#define WAIT_S 1 /* for the NMI, by the TSC: far more than a self-NMI takes */

static bool expecting; /* [a] the self-test's NMI is on its way */
static bool answered;  /* [a] its handler has run */
static uint32_t found; /* the CPU id the handler found in its per-CPU data; before answered */

notrace bool selftest_nmi(void)
{
	/* acquire: pairs with the release store in selftest_nmigs() */
	if (!__atomic_load_n(&expecting, __ATOMIC_ACQUIRE)) {
		return false;
	}
	found = this_cpu()->id;
	__atomic_store_n(&expecting, false, __ATOMIC_RELAXED);
	/* release: found is seen with it */
	__atomic_store_n(&answered, true, __ATOMIC_RELEASE);
	return true;
}

void selftest_nmigs(void)
{
	const struct cpu *c = this_cpu();
	uint32_t id = c->id, apic_id = c->apic_id;
	uint64_t flags = irq_save();
	uint64_t deadline = rdtsc() + timer_tsc_hz() * WAIT_S;

	/* release: pairs with the acquire load in selftest_nmi() */
	__atomic_store_n(&expecting, true, __ATOMIC_RELEASE);
	__asm__ volatile("swapgs" ::: "memory");
	apic_send_nmi(apic_id);
	/* acquire: pairs with the release store in selftest_nmi() */
	while (!__atomic_load_n(&answered, __ATOMIC_ACQUIRE) && rdtsc() < deadline) {
		cpu_relax();
	}
	__asm__ volatile("swapgs" ::: "memory");
	irq_restore(flags);
	if (!__atomic_load_n(&answered, __ATOMIC_ACQUIRE)) {
		printk("selftest nmigs: FAIL: no NMI came in %u s\n", WAIT_S);
	} else if (found != id) {
		printk("selftest nmigs: FAIL: the NMI on cpu %u found the data of cpu %u\n", id,
		       found);
	} else {
		printk("selftest nmigs: an NMI on cpu %u with the user's GS base found its own "
		       "per-CPU data\n",
		       id);
	}
}
