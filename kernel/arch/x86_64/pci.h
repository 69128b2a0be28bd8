/*
 * pci: finding a device on the PCI buses through configuration mechanism
 * #1 (ports 0xcf8/0xcfc, PCI Local Bus Specification 3.0, 3.2.2.3.2) and
 * sizing its memory BARs. The firmware has assigned the BARs; the kernel
 * only reads where they are. Boot CPU, at boot only: nothing is locked.
 */
#ifndef SPOOR_ARCH_PCI_H
#define SPOOR_ARCH_PCI_H

#include <stdint.h>

/* A function's address: bus, device, function. */
struct pci_addr {
	uint8_t bus;
	uint8_t dev;
	uint8_t fn;
};

/* The first function with vendor and device ids, in bus order: 0, or -ENODEV. */
int pci_find(uint16_t vendor, uint16_t device, struct pci_addr *out);

/*
 * Where memory BAR n (0..5) of a maps, and its size in bytes: 0, or
 * -EINVAL for an I/O BAR, an unassigned one or a 64-bit BAR's upper half.
 */
int pci_memory_bar(const struct pci_addr *a, uint32_t n, uint64_t *base, uint64_t *size);

#endif
