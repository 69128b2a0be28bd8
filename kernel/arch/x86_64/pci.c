/*
 * pci: configuration reads and BAR sizing (see pci.h). Register offsets
 * are those of a type 0 header (PCI 3.0, 6.1).
 */
#include "arch/x86_64/pci.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "arch/x86_64/cpu.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA	   0xcfc
#define PCI_ENABLE	   0x80000000u
#define PCI_BUSES	   256
#define PCI_DEVICES	   32
#define PCI_FUNCTIONS	   8

#define PCI_ID		 0x00 /* vendor (low 16 bits), device (high) */
#define PCI_COMMAND	 0x04
#define PCI_HEADER_TYPE	 0x0c /* byte 2 of this dword */
#define PCI_BAR0	 0x10
#define PCI_BARS	 6
#define PCI_NO_DEVICE	 0xffffu
#define CMD_MEMORY	 0x2u  /* memory space decoding */
#define HEADER_MULTI	 0x80u /* bit 7 of the header type: a multi-function device */
#define BAR_IO		 0x1u  /* bit 0: an I/O BAR */
#define BAR_TYPE_MASK	 0x6u  /* bits 1-2: 0 = 32-bit, 2 = 64-bit */
#define BAR_TYPE_64	 0x4u
#define BAR_ADDRESS_MASK ~0xfull /* the low bits of a memory BAR are flags */

static uint32_t address(const struct pci_addr *a, uint32_t offset)
{
	return PCI_ENABLE | (uint32_t)a->bus << 16 | (uint32_t)a->dev << 11 | (uint32_t)a->fn << 8 |
	       (offset & 0xfcu);
}

static uint32_t config_read(const struct pci_addr *a, uint32_t offset)
{
	outl(PCI_CONFIG_ADDRESS, address(a, offset));
	return inl(PCI_CONFIG_DATA);
}

static void config_write(const struct pci_addr *a, uint32_t offset, uint32_t v)
{
	outl(PCI_CONFIG_ADDRESS, address(a, offset));
	outl(PCI_CONFIG_DATA, v);
}

int pci_find(uint16_t vendor, uint16_t device, struct pci_addr *out)
{
	for (uint32_t bus = 0; bus < PCI_BUSES; bus++) {
		for (uint32_t dev = 0; dev < PCI_DEVICES; dev++) {
			struct pci_addr a = {.bus = (uint8_t)bus, .dev = (uint8_t)dev};
			uint32_t id = config_read(&a, PCI_ID);
			if ((id & 0xffff) == PCI_NO_DEVICE) {
				continue;
			}
			bool multi = config_read(&a, PCI_HEADER_TYPE) >> 16 & HEADER_MULTI;
			for (uint32_t fn = 0; fn < (multi ? PCI_FUNCTIONS : 1); fn++) {
				a.fn = (uint8_t)fn;
				id = config_read(&a, PCI_ID);
				if ((id & 0xffff) == vendor && id >> 16 == device) {
					*out = a;
					return 0;
				}
			}
		}
	}
	return -ENODEV;
}

/* The bits of BAR register reg that keep their value when all ones are written. */
static uint32_t size_mask(const struct pci_addr *a, uint32_t reg)
{
	uint32_t old = config_read(a, reg);

	config_write(a, reg, 0xffffffffu);
	uint32_t mask = config_read(a, reg);
	config_write(a, reg, old);
	return mask;
}

int pci_memory_bar(const struct pci_addr *a, uint32_t n, uint64_t *base, uint64_t *size)
{
	if (n >= PCI_BARS) {
		return -EINVAL;
	}
	uint32_t reg = PCI_BAR0 + 4 * n;
	uint32_t low = config_read(a, reg);
	bool wide = (low & BAR_TYPE_MASK) == BAR_TYPE_64;

	if (low & BAR_IO || (wide && n + 1 >= PCI_BARS)) {
		return -EINVAL;
	}
	/* Decoding off while the BAR briefly reads as all ones (PCI 3.0, 6.2.5.1). */
	uint32_t command = config_read(a, PCI_COMMAND);
	config_write(a, PCI_COMMAND, command & ~CMD_MEMORY);
	uint64_t mask = size_mask(a, reg);
	uint64_t high = 0;
	if (wide) {
		high = config_read(a, reg + 4);
		mask |= (uint64_t)size_mask(a, reg + 4) << 32;
	} else {
		mask |= 0xffffffff00000000ull;
	}
	config_write(a, PCI_COMMAND, command);

	*base = (high << 32 | low) & BAR_ADDRESS_MASK;
	*size = ~(mask & BAR_ADDRESS_MASK) + 1;
	return *base && *size ? 0 : -EINVAL;
}
