/*
 * wedge_test: selftest=tracewedge. A write that never completes is what a
 * CPU wedged inside a tracepoint leaves (a deadlock in an interrupt, an
 * NMI that never returns): its reserved slot stays marked being written
 * while the head has passed it. The readers must not wait for it for
 * ever; the machine is to be read as a hang is, with the shell on the
 * CPUs left. The last CPU takes an interrupt (interrupts masked from
 * then on), reserves its slot and marks it as the straight path does
 * first, and never goes on; only an NMI reaches it again.
 */
#include "trace/wedge_test.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "lib/printk.h"
#include "trace/ring_write.h"

static bool only_idle; /* [a] inject=recwedge: wedge only a CPU its idle thread runs on */
static bool wedged;    /* [a] a CPU was wedged: once a boot */

static void wedge(struct trap_frame *f)
{
	(void)f;
	struct cpu *c = this_cpu();
	uint64_t index;

	/*
	 * relaxed, both: flags. A CPU running a thread (traced, which asked,
	 * or the shell) would take that thread down with it: a later arming
	 * tries again.
	 */
	if (__atomic_load_n(&only_idle, __ATOMIC_RELAXED) && c->current != c->idle) {
		return;
	}
	if (__atomic_exchange_n(&wedged, true, __ATOMIC_RELAXED)) {
		return;
	}
	if (!c->trace_ring.hdr || !ttrace_ring_reserve(&c->trace_ring, 1, &index)) {
		printk("selftest tracewedge: cpu %u has no ring to write; not run\n", c->id);
		return;
	}
	/* release: W2's first store, as a writer's; the rest of the write never comes */
	__atomic_store_n(&ttrace_ring_slot(&c->trace_ring, index)->word[0], TTRACE_TS_WRITING,
			 __ATOMIC_RELEASE);
	printk("selftest tracewedge: cpu %u stops writing index %lu of its ring, interrupts "
	       "masked\n",
	       c->id, index);
	for (;;) {
		cpu_relax();
	}
}

void ttrace_wedge_test(void)
{
	if (ncpus < 2) {
		printk("selftest tracewedge: needs 2 cpus or more (smp=2), has %u; not run\n",
		       ncpus);
		return;
	}
	idt_set_handler(VECTOR_SELFTEST, wedge);
	apic_send_ipi(cpus[ncpus - 1].apic_id, VECTOR_SELFTEST);
}

void ttrace_wedge_idle(void)
{
	/* relaxed: a flag; a second IPI meanwhile finds it set in wedge() */
	if (ncpus < 2 || __atomic_load_n(&wedged, __ATOMIC_RELAXED)) {
		return;
	}
	__atomic_store_n(&only_idle, true, __ATOMIC_RELAXED);
	ttrace_wedge_test();
}
