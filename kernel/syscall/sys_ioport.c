/*
 * sys_ioport: string I/O on the ports of an I/O-port capability.
 */
#include "abi/errno.h"
#include "cap/cspace.h"
#include "dev/ioport.h"
#include "proc/process.h"
#include "syscall/syscall.h"

/* The range slot names, if it is an I/O-port capability with right. */
static int range(struct trap_frame *f, uint32_t right, const struct ioport_range **r)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_IOPORT,
			     right, &c);

	if (!err) {
		*r = c.obj; /* static: lives without the reference */
		cap_put(&c);
	}
	return err;
}

int64_t sys_ioport_read(struct trap_frame *f)
{
	const struct ioport_range *r;
	int err = range(f, CAP_RIGHT_READ, &r);

	return err ? err : ioport_read(r, SYSARG1(f), SYSARG2(f), SYSARG3(f));
}

int64_t sys_ioport_write(struct trap_frame *f)
{
	const struct ioport_range *r;
	int err = range(f, CAP_RIGHT_WRITE, &r);

	return err ? err : ioport_write(r, SYSARG1(f), SYSARG2(f), SYSARG3(f));
}
