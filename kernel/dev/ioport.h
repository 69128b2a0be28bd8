/*
 * ioport: ranges of x86 I/O ports as capability objects
 * (CAP_KIND_IOPORT, abi/cap.h), so that a driver in user space reaches its
 * device's registers and nothing else. A range is static kernel data and
 * lives for ever: capabilities to it count no references.
 */
#ifndef SPOOR_DEV_IOPORT_H
#define SPOOR_DEV_IOPORT_H

#include <stdint.h>

struct ioport_range {
	uint16_t base;	/* [I] the first port */
	uint16_t count; /* [I] ports from base */
};

/*
 * String I/O on port base + offset of r: len bytes from the user buffer
 * at ubuf to the port (write), or from the port into it (read), one at a
 * time. Returns len, -EINVAL for an offset outside r or a len of 0 or
 * above IOPORT_XFER_MAX, -EFAULT for a buffer the caller cannot reach.
 * Interrupts enabled, no lock held; the port sees every byte before a
 * fault stops the transfer.
 */
int64_t ioport_read(const struct ioport_range *r, uint64_t offset, uint64_t ubuf, uint64_t len);
int64_t ioport_write(const struct ioport_range *r, uint64_t offset, uint64_t ubuf, uint64_t len);

#endif
