/*
 * sys_uevent: user-defined trace events (abi/uevent.h): registering one
 * (traced, with trace control), writing one (whoever holds it), and
 * controlling them (traced).
 */
#include "abi/errno.h"
#include "abi/uevent.h"
#include "cap/cspace.h"
#include "mm/heap.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "syscall/syscall.h"
#include "trace/uevent_table.h"

#define UEVENT_RIGHTS (CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)

int64_t sys_uevent_register(struct trap_frame *f)
{
	/* One byte more than a description may have, so the parser can say it is too long. */
	uint64_t len = SYSARG2(f) > UEVENT_DESC_MAX + 1 ? UEVENT_DESC_MAX + 1 : SYSARG2(f);
	struct uevent *ev;
	int err = syscall_need_trace_control(SYSARG0(f));

	if (err) {
		return err;
	}
	char *desc = kmalloc(UEVENT_DESC_MAX + 1);
	if (!desc) {
		return -ENOMEM;
	}
	err = copy_from_user(desc, SYSARG1(f), len);
	if (!err) {
		err = uevent_register(desc, len, &ev);
	}
	kfree(desc);
	if (err) {
		return err;
	}
	struct cap c = {.kind = CAP_KIND_UEVENT, .rights = UEVENT_RIGHTS, .obj = ev};
	int slot = cspace_insert(&process_current()->caps, &c, CAP_SLOT_ANY);
	uevent_put(ev); /* the capability took its own reference, if it was made */
	return slot;
}

int64_t sys_uevent_write(struct trap_frame *f)
{
	struct cap c;

	if ((int64_t)SYSARG0(f) < 0) {
		return -EINVAL;
	}
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_UEVENT,
			     CAP_RIGHT_WRITE, &c);
	if (err == -EBADF || err == -ECAPKIND) {
		return -ENOENT; /* no event the caller registered */
	}
	if (err) {
		return err;
	}
	err = uevent_write(c.obj, SYSARG1(f), SYSARG2(f));
	cap_put(&c);
	return err;
}

int64_t sys_uevent_control(struct trap_frame *f)
{
	uint32_t op = sysarg_u32(SYSARG1(f));
	int err = syscall_need_trace_control(SYSARG0(f));

	if (err) {
		return err;
	}
	if (op != UEVENT_OP_INFO) {
		return uevent_control(op, SYSARG2(f), NULL);
	}
	struct uevent_info *info = kmalloc(sizeof(*info));
	if (!info) {
		return -ENOMEM;
	}
	err = uevent_control(op, SYSARG2(f), info);
	if (!err) {
		err = copy_to_user(SYSARG3(f), info, sizeof(*info));
	}
	kfree(info);
	return err;
}
