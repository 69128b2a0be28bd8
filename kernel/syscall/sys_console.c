/*
 * sys_console: reading and writing the console through its capability.
 */
#include "abi/errno.h"
#include "cap/cspace.h"
#include "console/console.h"
#include "proc/process.h"
#include "syscall/syscall.h"

static int check(struct trap_frame *f, uint32_t right)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_CONSOLE,
			     right, &c);

	if (!err) {
		cap_put(&c);
	}
	return err;
}

int64_t sys_console_write(struct trap_frame *f)
{
	int err = check(f, CAP_RIGHT_WRITE);

	return err ? err : console_write_user(SYSARG1(f), SYSARG2(f));
}

int64_t sys_console_read(struct trap_frame *f)
{
	int err = check(f, CAP_RIGHT_READ);

	return err ? err : console_read_user(SYSARG1(f), SYSARG2(f), syscall_deadline(SYSARG3(f)));
}
