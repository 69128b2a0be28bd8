/*
 * acpi: RSDP -> RSDT/XSDT -> MADT, FADT -> DSDT. Layouts from the ACPI 6.4
 * specification, chapter 5. Every table's checksum is verified before use;
 * a table that fails is ignored. The MADT's entries are madt.c's to read.
 */
#include "arch/x86_64/acpi.h"

#include "arch/x86_64/percpu.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/memlayout.h"

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length; /* revision >= 2 from here on */
	uint64_t xsdt;
	uint8_t xchecksum;
	uint8_t reserved[3];
} __attribute__((packed));

struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem[6];
	char oem_table[8];
	uint32_t oem_revision;
	uint32_t creator;
	uint32_t creator_revision;
} __attribute__((packed));

_Static_assert(sizeof(struct sdt_header) == 36, "ACPI 6.4 5.2.6");
_Static_assert(MADT_CPUS_MAX == MAX_CPUS, "madt.h");

#define FADT_DSDT     40 /* ACPI 6.4 5.2.9: byte offsets in the FADT */
#define FADT_PM1A_CNT 64
#define FADT_PM1B_CNT 68
#define FADT_X_DSDT   140

#define AML_PACKAGE_OP	0x12
#define AML_BYTE_PREFIX 0x0a

struct acpi_madt_info acpi_madt;
struct acpi_power acpi_power;

static int checksum_ok(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++) {
		sum += b[i];
	}
	return sum == 0;
}

static const struct sdt_header *map_table(uint64_t phys)
{
	const struct sdt_header *h = phys_to_virt(phys);

	return phys && checksum_ok(h, h->length) ? h : NULL;
}

static uint32_t rd32(const void *base, uint32_t off)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)base + off, sizeof(v));
	return v;
}

static uint64_t rd64(const void *base, uint32_t off)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)base + off, sizeof(v));
	return v;
}

/*
 * \_S5 is a Name holding a Package whose first two elements are the
 * SLP_TYP values. AML is not interpreted: we find the name and decode the
 * small package encoding firmware uses for it (ACPI 6.4 20.2.5, 7.4.2).
 */
static uint8_t aml_small_int(const uint8_t *p, const uint8_t **next)
{
	if (*p == AML_BYTE_PREFIX) {
		*next = p + 2;
		return p[1];
	}
	*next = p + 1;
	return *p; /* ZeroOp (0x00) and OneOp (0x01) are their own values */
}

static void parse_s5(const struct sdt_header *dsdt)
{
	const uint8_t *aml = (const uint8_t *)dsdt;

	for (uint32_t i = sizeof(*dsdt); i + 12 < dsdt->length; i++) {
		if (memcmp(aml + i, "_S5_", 4) || aml[i + 4] != AML_PACKAGE_OP) {
			continue;
		}
		const uint8_t *p = aml + i + 5;
		p += (*p >> 6) + 1; /* PkgLength: bits 7:6 count extra bytes */
		p++;		    /* NumElements */
		acpi_power.s5_typ_a = aml_small_int(p, &p);
		acpi_power.s5_typ_b = aml_small_int(p, &p);
		return;
	}
	/* No \_S5: the PM1 registers are still there; 0 is the usual S5 type. */
}

static void parse_fadt(const struct sdt_header *fadt)
{
	uint64_t dsdt_phys = rd32(fadt, FADT_DSDT);

	acpi_power.pm1a_cnt = (uint16_t)rd32(fadt, FADT_PM1A_CNT);
	acpi_power.pm1b_cnt = (uint16_t)rd32(fadt, FADT_PM1B_CNT);
	if (fadt->length >= FADT_X_DSDT + 8 && rd64(fadt, FADT_X_DSDT)) {
		dsdt_phys = rd64(fadt, FADT_X_DSDT);
	}
	const struct sdt_header *dsdt = map_table(dsdt_phys);
	if (dsdt) {
		parse_s5(dsdt);
	}
}

void acpi_init(const void *rsdp_copy, uint32_t rsdp_len)
{
	const struct rsdp *rsdp = rsdp_copy;
	const struct sdt_header *root = NULL;
	uint32_t entry_size = 4;

	if (rsdp_len < 20 || memcmp(rsdp->signature, "RSD PTR ", 8) || !checksum_ok(rsdp, 20)) {
		panic("acpi: no valid RSDP from the boot loader");
	}
	if (rsdp->revision >= 2 && rsdp_len >= sizeof(*rsdp) && rsdp->xsdt) {
		root = map_table(rsdp->xsdt);
		entry_size = 8;
	}
	if (!root) {
		root = map_table(rsdp->rsdt);
		entry_size = 4;
	}
	if (!root) {
		panic("acpi: RSDT/XSDT missing or corrupt");
	}

	const struct sdt_header *madt = NULL;
	for (uint32_t off = sizeof(*root); off + entry_size <= root->length; off += entry_size) {
		uint64_t phys = entry_size == 8 ? rd64(root, off) : rd32(root, off);
		const struct sdt_header *t = map_table(phys);
		if (!t) {
			continue;
		}
		if (!memcmp(t->signature, "APIC", 4)) {
			madt = t;
		} else if (!memcmp(t->signature, "FACP", 4)) {
			parse_fadt(t);
		}
	}
	if (!madt) {
		panic("acpi: no MADT; Spoor needs one to find the CPUs and APICs");
	}
	madt_parse((const uint8_t *)madt, madt->length, &acpi_madt);
	if (!acpi_madt.ncpus || !acpi_madt.ioapic_phys) {
		panic("acpi: the MADT lists no usable CPU or no IOAPIC");
	}
}
