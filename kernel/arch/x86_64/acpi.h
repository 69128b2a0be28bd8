/*
 * acpi: the few ACPI tables the kernel reads. The MADT gives the CPUs,
 * the LAPIC and IOAPIC addresses and the ISA interrupt overrides; the FADT
 * and the DSDT's \_S5 object give what power_off() writes.
 */
#ifndef SPOOR_ARCH_ACPI_H
#define SPOOR_ARCH_ACPI_H

#include <stdint.h>

#include "arch/x86_64/madt.h"

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
