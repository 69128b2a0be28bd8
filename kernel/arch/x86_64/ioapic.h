/*
 * ioapic: routes device interrupts (GSIs) to CPUs. The legacy 8259 PICs are
 * remapped away from the exception vectors and masked, so every device
 * interrupt comes through here.
 */
#ifndef SPOOR_ARCH_IOAPIC_H
#define SPOOR_ARCH_IOAPIC_H

#include <stdint.h>

/* Masks the 8259s and every IOAPIC entry; needs acpi_init(). */
void ioapic_init(void);

/* Delivers ISA IRQ irq (after MADT overrides) as vector to the boot CPU. */
void ioapic_route_isa(uint8_t irq, uint8_t vector);

#endif
