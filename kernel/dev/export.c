/*
 * export: finds COM2 and the ivshmem device (see export.h).
 */
#include "dev/export.h"

#include <stdbool.h>
#include <stddef.h>

#include "abi/errno.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/pci.h"
#include "lib/printk.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

#define COM2		  0x2f8
#define UART_PORTS	  8
#define UART_SCRATCH	  7 /* a register with no function: present iff it keeps a value */
#define SCRATCH_PATTERN	  0x5a
#define IVSHMEM_VENDOR	  0x1af4 /* Red Hat, Inc. (QEMU's docs/specs/ivshmem-spec) */
#define IVSHMEM_DEVICE	  0x1110
#define IVSHMEM_BAR_MEM	  2 /* the shared memory; BAR 0 holds registers, unused here */
#define KIB		  1024
#define DIRECT_MAP_ALWAYS (4ull << 30)

static struct ioport_range com2 = {.base = COM2, .count = UART_PORTS};
static bool have_port;	      /* [I] */
static struct memobj *window; /* [I] */

static bool uart_present(uint16_t base)
{
	outb((uint16_t)(base + UART_SCRATCH), SCRATCH_PATTERN);
	return inb((uint16_t)(base + UART_SCRATCH)) == SCRATCH_PATTERN;
}

/* The window: the device's memory BAR as a frame object, at most MEMOBJ_MAX_PAGES of it. */
static int find_window(uint64_t *base, uint64_t *bytes)
{
	struct pci_addr a;
	uint64_t size;
	int err = pci_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, &a);

	if (!err) {
		err = pci_memory_bar(&a, IVSHMEM_BAR_MEM, base, &size);
	}
	if (err) {
		return err;
	}
	uint64_t npages = size / PAGE_SIZE < MEMOBJ_MAX_PAGES ? size / PAGE_SIZE : MEMOBJ_MAX_PAGES;
	/*
	 * Frame objects are read and written through the direct map, which
	 * always covers the first 4 GiB (paging.c) but not what lies beyond.
	 */
	if (*base + npages * PAGE_SIZE > DIRECT_MAP_ALWAYS) {
		return -ERANGE;
	}
	err = pmm_add_device_memory(*base, npages);
	if (!err) {
		err = memobj_wrap(*base, npages, &window);
	}
	*bytes = npages * PAGE_SIZE;
	return err;
}

void export_init(void)
{
	uint64_t base = 0, bytes = 0;

	have_port = uart_present(COM2);
	int err = find_window(&base, &bytes);
	if (!have_port && err) {
		printk("export: none (no COM2, no ivshmem window)\n");
		return;
	}
	printk("export: %s, ", have_port ? "COM2 at 0x2f8" : "no COM2");
	if (err) {
		printk("no window (%s)\n", err == -ENODEV   ? "no ivshmem device"
					   : err == -ERANGE ? "its BAR lies above 4 GiB"
							    : "its BAR is unusable");
	} else {
		printk("window %lu KiB at 0x%lx\n", bytes / KIB, base);
	}
}

const struct ioport_range *export_port(void)
{
	return have_port ? &com2 : NULL;
}

struct memobj *export_window(void)
{
	return window;
}
