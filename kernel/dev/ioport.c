/*
 * ioport: string I/O through a bounce buffer on the kernel stack, a chunk
 * at a time, so a user buffer is only ever touched by the user copies.
 */
#include "dev/ioport.h"

#include "abi/cap.h"
#include "abi/errno.h"
#include "arch/x86_64/cpu.h"
#include "mm/usercopy.h"

#define CHUNK 256

static int check(const struct ioport_range *r, uint64_t offset, uint64_t len)
{
	return offset >= r->count || !len || len > IOPORT_XFER_MAX ? -EINVAL : 0;
}

int64_t ioport_read(const struct ioport_range *r, uint64_t offset, uint64_t ubuf, uint64_t len)
{
	uint8_t buf[CHUNK];
	int err = check(r, offset, len);

	for (uint64_t done = 0; !err && done < len; done += CHUNK) {
		uint64_t n = len - done < CHUNK ? len - done : CHUNK;
		insb((uint16_t)(r->base + offset), buf, n);
		err = copy_to_user(ubuf + done, buf, n);
	}
	return err ? err : (int64_t)len;
}

int64_t ioport_write(const struct ioport_range *r, uint64_t offset, uint64_t ubuf, uint64_t len)
{
	uint8_t buf[CHUNK];
	int err = check(r, offset, len);

	for (uint64_t done = 0; !err && done < len; done += CHUNK) {
		uint64_t n = len - done < CHUNK ? len - done : CHUNK;
		err = copy_from_user(buf, ubuf + done, n);
		if (!err) {
			outsb((uint16_t)(r->base + offset), buf, n);
		}
	}
	return err ? err : (int64_t)len;
}
