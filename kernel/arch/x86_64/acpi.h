/*
 * acpi: the few ACPI tables the kernel reads. The MADT gives the CPUs,
 * the LAPIC and IOAPIC addresses and the ISA interrupt overrides; the FADT
 * and the DSDT's \_S5 object give what power_off() writes.
 */
#ifndef SPOOR_ARCH_ACPI_H
#define SPOOR_ARCH_ACPI_H

#include <stdint.h>

#include "arch/x86_64/percpu.h"

#define ACPI_ISA_IRQS 16

struct acpi_madt_info {
	uint64_t lapic_phys;
	uint32_t ncpus;	       /* usable CPUs listed, capped at MAX_CPUS */
	uint32_t ncpus_listed; /* usable CPUs in the table */
	uint32_t apic_ids[MAX_CPUS];
	uint64_t ioapic_phys;
	uint32_t ioapic_gsi_base;
	/* ISA IRQ n is GSI isa_gsi[n], with isa_flags[n] (MPS INTI flags). */
	uint32_t isa_gsi[ACPI_ISA_IRQS];
	uint16_t isa_flags[ACPI_ISA_IRQS];
};

struct acpi_power {
	uint16_t pm1a_cnt; /* 0: no way to power off */
	uint16_t pm1b_cnt;
	uint8_t s5_typ_a;
	uint8_t s5_typ_b;
};

extern struct acpi_madt_info acpi_madt;
extern struct acpi_power acpi_power;

/*
 * Parses the tables from the RSDP the loader handed over (a copy of it).
 * Panics when there is no valid MADT: Spoor cannot run without one.
 */
void acpi_init(const void *rsdp, uint32_t rsdp_len);

#endif
