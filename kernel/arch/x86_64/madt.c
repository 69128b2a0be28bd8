/*
 * madt: the MADT's entries (madt.h). Multi-byte fields are little-endian
 * and need not be aligned: they are read a byte at a time.
 */
#include "arch/x86_64/madt.h"

#define MADT_LAPIC_ADDR	    36 /* after the 36-byte standard header */
#define MADT_ENTRIES_OFFSET 44 /* the header, the LAPIC address, the flags */

#define MADT_LAPIC	    0 /* ACPI 6.4 5.2.12.2 */
#define MADT_IOAPIC	    1 /* 5.2.12.3 */
#define MADT_ISO	    2 /* 5.2.12.5, interrupt source override */
#define MADT_LAPIC_OVERRIDE 5 /* 5.2.12.8 */
#define MADT_LAPIC_ENABLED  (1u << 0)

/* The n-byte little-endian number at p. */
static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--) {
		v = v << 8 | p[n];
	}
	return v;
}

void madt_parse(const uint8_t *madt, uint32_t len, struct acpi_madt_info *m)
{
	*m = (struct acpi_madt_info){0};
	if (len < MADT_ENTRIES_OFFSET) {
		return;
	}
	m->lapic_phys = le(madt + MADT_LAPIC_ADDR, 4);
	for (unsigned i = 0; i < ACPI_ISA_IRQS; i++) {
		m->isa_gsi[i] = i;
	}
	for (uint32_t off = MADT_ENTRIES_OFFSET; off + 2 <= len;) {
		const uint8_t *e = madt + off;
		uint8_t type = e[0], elen = e[1];

		if (elen < 2 || off + elen > len) {
			break;
		}
		/*
		 * Only an enabled CPU is there to start: one that is online
		 * capable but not enabled is absent (a hypervisor lists such
		 * slots for CPUs it may plug in later), and would never answer
		 * INIT-SIPI-SIPI.
		 */
		if (type == MADT_LAPIC && elen >= 8 && le(e + 4, 4) & MADT_LAPIC_ENABLED) {
			if (m->ncpus < MADT_CPUS_MAX) {
				m->apic_ids[m->ncpus++] = e[3];
			}
			m->ncpus_listed++;
		} else if (type == MADT_IOAPIC && elen >= 12 && !m->ioapic_phys) {
			m->ioapic_phys = le(e + 4, 4);
			m->ioapic_gsi_base = (uint32_t)le(e + 8, 4);
		} else if (type == MADT_ISO && elen >= 10 && e[3] < ACPI_ISA_IRQS) {
			m->isa_gsi[e[3]] = (uint32_t)le(e + 4, 4);
			m->isa_flags[e[3]] = (uint16_t)le(e + 8, 2);
		} else if (type == MADT_LAPIC_OVERRIDE && elen >= 12) {
			m->lapic_phys = le(e + 4, 8);
		}
		off += elen;
	}
}
