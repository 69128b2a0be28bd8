/*
 * Tests kernel/arch/x86_64/madt.c, the MADT's reader. Each row is a table
 * made of a few entries and what madt_parse() must take from it: the CPUs
 * to start (only those marked enabled), the IOAPIC, an ISA override.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/madt.h"
#include "test.h"

#define HEADER_BYTES 44 /* the standard header, the LAPIC address, the flags */
#define TABLE_MAX    512
#define ENTRIES_MAX  12
#define LAPIC_PHYS   0xfee00000u

#define ENABLED	       1u /* ACPI 6.4 5.2.12.2, local APIC flags */
#define ONLINE_CAPABLE 2u

enum { LAPIC = 0, IOAPIC = 1, ISO = 2 };

/*
 * One entry: a local APIC (id, flags), an IOAPIC (id: its address) or an
 * override (id: the IRQ, flags: the GSI). An all-zero entry ends a list.
 */
struct entry {
	uint8_t type;
	uint8_t len; /* 0: the entry's usual length */
	uint32_t id;
	uint32_t flags;
};

struct madt_row {
	const char *what;
	struct entry entries[ENTRIES_MAX];
	uint32_t ncpus, ncpus_listed;
	uint32_t apic_ids[MADT_CPUS_MAX];
	uint64_t ioapic_phys;
};

static const struct madt_row rows[] = {
    {"two enabled CPUs", {{LAPIC, 0, 0, ENABLED}, {LAPIC, 0, 1, ENABLED}}, 2, 2, {0, 1}, 0},
    /* The bug: an absent slot a hypervisor lists for hot-plug was a CPU to start. */
    {"online capable but not enabled is absent",
     {{LAPIC, 0, 0, ENABLED}, {LAPIC, 0, 1, ONLINE_CAPABLE}, {LAPIC, 0, 2, ENABLED}},
     2,
     2,
     {0, 2},
     0},
    {"neither flag: disabled", {{LAPIC, 0, 0, ENABLED}, {LAPIC, 0, 5, 0}}, 1, 1, {0}, 0},
    {"enabled and online capable", {{LAPIC, 0, 3, ENABLED | ONLINE_CAPABLE}}, 1, 1, {3}, 0},
    {"more CPUs than the kernel starts",
     {{LAPIC, 0, 0, ENABLED},
      {LAPIC, 0, 1, ENABLED},
      {LAPIC, 0, 2, ENABLED},
      {LAPIC, 0, 3, ENABLED},
      {LAPIC, 0, 4, ENABLED},
      {LAPIC, 0, 5, ENABLED},
      {LAPIC, 0, 6, ENABLED},
      {LAPIC, 0, 7, ENABLED},
      {LAPIC, 0, 8, ENABLED},
      {LAPIC, 0, 9, ONLINE_CAPABLE}},
     8,
     9,
     {0, 1, 2, 3, 4, 5, 6, 7},
     0},
    {"the first IOAPIC",
     {{LAPIC, 0, 0, ENABLED}, {IOAPIC, 0, 0xfec00000u, 0}, {IOAPIC, 0, 0xfec01000u, 0}},
     1,
     1,
     {0},
     0xfec00000u},
    {"a too short entry is skipped",
     {{LAPIC, 6, 1, ENABLED}, {LAPIC, 0, 2, ENABLED}},
     1,
     1,
     {2},
     0},
    {"a zero length ends the walk",
     {{LAPIC, 0, 0, ENABLED}, {LAPIC, 1, 1, ENABLED}, {LAPIC, 0, 2, ENABLED}},
     1,
     1,
     {0},
     0},
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* Lays out the table of row r in t; returns its length. */
static uint32_t make_table(const struct madt_row *r, uint8_t *t)
{
	uint32_t len = HEADER_BYTES;

	memset(t, 0, TABLE_MAX);
	memcpy(t, "APIC", 4);
	put32(t + 36, LAPIC_PHYS);
	for (int i = 0; i < ENTRIES_MAX; i++) {
		const struct entry *e = &r->entries[i];
		if (!e->type && !e->len && !e->id && !e->flags) {
			break;
		}
		uint8_t *p = t + len;
		uint8_t usual = e->type == LAPIC ? 8 : e->type == IOAPIC ? 12 : 10;

		p[0] = e->type;
		p[1] = e->len ? e->len : usual;
		if (e->type == LAPIC) {
			p[2] = (uint8_t)e->id; /* the processor uid: the same here */
			p[3] = (uint8_t)e->id;
			put32(p + 4, e->flags);
		} else if (e->type == IOAPIC) {
			put32(p + 4, e->id);
		} else {
			p[3] = (uint8_t)e->id;
			put32(p + 4, e->flags);
		}
		len += e->len ? e->len : usual;
	}
	put32(t + 4, len);
	return len;
}

TEST(madt_rows)
{
	static uint8_t table[TABLE_MAX];

	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
		const struct madt_row *r = &rows[n];
		struct acpi_madt_info m;

		madt_parse(table, make_table(r, table), &m);
		CHECK_EQ_UINT(m.lapic_phys, LAPIC_PHYS, r->what);
		CHECK_EQ_UINT(m.ncpus, r->ncpus, r->what);
		CHECK_EQ_UINT(m.ncpus_listed, r->ncpus_listed, r->what);
		for (uint32_t i = 0; i < r->ncpus && i < MADT_CPUS_MAX; i++) {
			CHECK_EQ_UINT(m.apic_ids[i], r->apic_ids[i], r->what);
		}
		CHECK_EQ_UINT(m.ioapic_phys, r->ioapic_phys, r->what);
	}
}

TEST(madt_iso_overrides_one_isa_irq)
{
	static uint8_t table[TABLE_MAX];
	/* An override's flags word here is the GSI: IRQ 0 is GSI 2; IRQ 20 is no ISA IRQ. */
	const struct madt_row r = {.what = "override",
				   .entries = {{ISO, 0, 0, 2}, {ISO, 0, 20, 7}}};
	struct acpi_madt_info m;

	madt_parse(table, make_table(&r, table), &m);
	CHECK_EQ_UINT(m.isa_gsi[0], 2, "irq 0");
	CHECK_EQ_UINT(m.isa_gsi[1], 1, "irq 1: identity");
	CHECK_EQ_UINT(m.isa_gsi[ACPI_ISA_IRQS - 1], ACPI_ISA_IRQS - 1, "irq 15: identity");
}
