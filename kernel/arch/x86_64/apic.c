/*
 * apic: xAPIC registers through the uncached direct map (paging_init maps
 * the APIC page with caching disabled). Register offsets from SDM 3A 11.4.1.
 */
#include "arch/x86_64/apic.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "mm/memlayout.h"

#define LAPIC_ID	    0x020
#define LAPIC_TPR	    0x080
#define LAPIC_EOI	    0x0b0
#define LAPIC_SVR	    0x0f0
#define LAPIC_IRR	    0x200 /* SDM 3A 11.8.4: 8 registers of 32 vectors, 0x10 apart */
#define LAPIC_ICR_LOW	    0x300
#define LAPIC_ICR_HIGH	    0x310
#define LAPIC_LVT_TIMER	    0x320
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE  0x3e0

#define SVR_ENABLE	(1u << 8)
#define ICR_FIXED	0x000u
#define ICR_NMI		0x400u
#define ICR_INIT	0x500u
#define ICR_STARTUP	0x600u
#define ICR_PENDING	(1u << 12)
#define ICR_ASSERT	(1u << 14)
#define ICR_LEVEL	(1u << 15)
#define LVT_MASKED	(1u << 16)
#define LVT_PERIODIC	(1u << 17)
#define TIMER_DIVIDE_16 0x3

static volatile uint32_t *lapic; /* [I] NULL until apic_init() */

static uint32_t rd(uint32_t reg)
{
	return lapic[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

void apic_init(uint64_t phys)
{
	lapic = phys_to_virt(phys);
}

void apic_init_cpu(void)
{
	wr(LAPIC_TPR, 0);
	wr(LAPIC_SVR, SVR_ENABLE | VECTOR_SPURIOUS);
}

uint32_t apic_id(void)
{
	return rd(LAPIC_ID) >> 24;
}

bool apic_pending(uint8_t vector)
{
	return rd(LAPIC_IRR + vector / 32 * 0x10) >> (vector % 32) & 1;
}

void apic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

static void send(uint32_t dest, uint32_t command)
{
	/* An interrupt between the two writes could send an IPI of its own. */
	uint64_t flags = irq_save();

	wr(LAPIC_ICR_HIGH, dest << 24);
	wr(LAPIC_ICR_LOW, command);
	while (rd(LAPIC_ICR_LOW) & ICR_PENDING) {
		cpu_relax();
	}
	irq_restore(flags);
}

void apic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send(apic_id, ICR_FIXED | ICR_ASSERT | vector);
}

void apic_send_init(uint32_t apic_id)
{
	send(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
}

void apic_send_startup(uint32_t apic_id, uint8_t page)
{
	send(apic_id, ICR_STARTUP | ICR_ASSERT | page);
}

void apic_send_nmi(uint32_t apic_id)
{
	send(apic_id, ICR_NMI | ICR_ASSERT);
}

void apic_stop_other_cpus(void)
{
	if (!lapic) {
		return;
	}
	/*
	 * One NMI per started CPU rather than the all-but-self shorthand: a CPU
	 * the MADT lists but smp= left parked must not be woken.
	 */
	uint32_t self = apic_id();
	for (uint32_t i = 0; i < ncpus; i++) {
		if (cpus[i].apic_id != self) {
			send(cpus[i].apic_id, ICR_NMI | ICR_ASSERT);
		}
	}
}

void apic_timer_oneshot(uint32_t count)
{
	wr(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INITIAL, count);
}

void apic_timer_periodic(uint8_t vector, uint32_t count)
{
	wr(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
	wr(LAPIC_LVT_TIMER, LVT_PERIODIC | vector);
	wr(LAPIC_TIMER_INITIAL, count);
}

uint32_t apic_timer_current(void)
{
	return rd(LAPIC_TIMER_CURRENT);
}
