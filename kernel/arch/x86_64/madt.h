/*
 * madt: what the kernel takes from the MADT (ACPI 6.4 5.2.12): the CPUs to
 * start, the local APIC and IOAPIC addresses, the ISA interrupt overrides.
 * acpi.c finds the table and checks its checksum; madt_parse() reads its
 * entries. Pure code, no kernel dependency: the host tests compile it.
 */
#ifndef SPOOR_ARCH_MADT_H
#define SPOOR_ARCH_MADT_H

#include <stdint.h>

#define ACPI_ISA_IRQS 16
#define MADT_CPUS_MAX 8 /* MAX_CPUS (percpu.h), asserted in acpi.c */

struct acpi_madt_info {
	uint64_t lapic_phys;
	uint32_t ncpus;	       /* usable CPUs listed, capped at MADT_CPUS_MAX */
	uint32_t ncpus_listed; /* usable CPUs in the table */
	uint32_t apic_ids[MADT_CPUS_MAX];
	uint64_t ioapic_phys; /* the first IOAPIC's; 0: none */
	uint32_t ioapic_gsi_base;
	/* ISA IRQ n is GSI isa_gsi[n], with isa_flags[n] (MPS INTI flags). */
	uint32_t isa_gsi[ACPI_ISA_IRQS];
	uint16_t isa_flags[ACPI_ISA_IRQS];
};

/*
 * Fills *m from the MADT at madt, len bytes, its standard header included.
 * A usable CPU is a local APIC entry marked enabled: one only online
 * capable is a slot a CPU may be plugged into later, absent now. Entries
 * that are too short are skipped; one that runs past len ends the walk.
 */
void madt_parse(const uint8_t *madt, uint32_t len, struct acpi_madt_info *m);

#endif
