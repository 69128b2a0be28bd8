/*
 * export: the devices that carry traces out of the machine (DESIGN.md,
 * "Getting traces out and answers back"). QEMU's second serial port
 * (COM2) is a byte channel to the host, for short messages both ways; the
 * export window is the shared memory of an ivshmem PCI device, backed by
 * a file on the host, for the bulk of a saved trace (a serial port moves
 * about 400 KiB/s under TCG, one host write a byte; the window moves a
 * ring's worth in the time of a copy). In keeping with a microkernel the
 * kernel only finds them and hands them to init as capabilities (an
 * I/O-port range, a frame object over the window); traced drives them.
 */
#ifndef SPOOR_DEV_EXPORT_H
#define SPOOR_DEV_EXPORT_H

#include "dev/ioport.h"
#include "mm/memobj.h"

/* Boot, after the frame allocator: finds both devices and prints the banner's export line. */
void export_init(void);

/* COM2's registers, or NULL if the machine has no second serial port. */
const struct ioport_range *export_port(void);

/* The export window (one reference the kernel keeps), or NULL without an ivshmem device. */
struct memobj *export_window(void);

#endif
