/*
 * apic: the local APIC of each CPU (xAPIC, memory-mapped): end of
 * interrupt, inter-processor interrupts, and the timer registers.
 */
#ifndef SPOOR_ARCH_APIC_H
#define SPOOR_ARCH_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* Maps the LAPIC registers found by acpi_init(); boot CPU, once. */
void apic_init(uint64_t phys);

/* Enables the calling CPU's LAPIC (spurious vector, priority 0). */
void apic_init_cpu(void);

uint32_t apic_id(void);

/* Whether vector is requested on this CPU and not yet taken (its IRR bit). */
bool apic_pending(uint8_t vector);

void apic_eoi(void);
void apic_send_ipi(uint32_t apic_id, uint8_t vector);
void apic_send_init(uint32_t apic_id);
void apic_send_startup(uint32_t apic_id, uint8_t page);

/* An NMI to one CPU (the lockup detector's question). */
void apic_send_nmi(uint32_t apic_id);

/* NMI to every other started CPU (used by panic); safe before apic_init(). */
void apic_stop_other_cpus(void);

/* Timer: divide by 16; a one-shot countdown for calibration, or periodic. */
void apic_timer_oneshot(uint32_t count);
void apic_timer_periodic(uint8_t vector, uint32_t count);
uint32_t apic_timer_current(void);

#endif
