/*
 * sys_cap: copying, deleting and identifying capabilities.
 */
#include "abi/errno.h"
#include "cap/cspace.h"
#include "dev/ioport.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "syscall/syscall.h"
#include "trace/ktrace.h"
#include "trace/uevent_table.h"

int64_t sys_cap_copy(struct trap_frame *f)
{
	struct cspace *cs = &process_current()->caps;
	struct cap c;
	int err = cspace_get(cs, sysarg_u32(SYSARG0(f)), CAP_KIND_NONE, 0, &c);

	if (err) {
		return err;
	}
	cap_restrict(&c, sysarg_u32(SYSARG1(f))); /* rights only ever shrink */
	int slot = cspace_insert(cs, &c, CAP_SLOT_ANY);
	cap_put(&c);
	return slot;
}

int64_t sys_cap_delete(struct trap_frame *f)
{
	return cspace_delete(&process_current()->caps, sysarg_u32(SYSARG0(f)));
}

int64_t sys_cap_identify(struct trap_frame *f)
{
	struct cap c;
	int err =
	    cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_NONE, 0, &c);

	if (err) {
		return err;
	}
	struct cap_info info = {.kind = c.kind, .rights = c.rights};
	if (c.kind == CAP_KIND_FRAME) {
		info.size = (uint64_t)((struct memobj *)c.obj)->npages * PAGE_SIZE;
	} else if (c.kind == CAP_KIND_PROCESS) {
		info.size = ((struct process *)c.obj)->pid;
	} else if (c.kind == CAP_KIND_ENDPOINT) {
		info.size = c.badge;
	} else if (c.kind == CAP_KIND_UEVENT) {
		info.size = uevent_id(c.obj);
	} else if (c.kind == CAP_KIND_IOPORT) {
		info.size = ((const struct ioport_range *)c.obj)->count;
	} else if (c.kind == CAP_KIND_TRACE_READ) {
		info.size = ttrace_area_object() ? ttrace_area_object()->npages * PAGE_SIZE : 0;
	}
	cap_put(&c);
	return copy_to_user(SYSARG1(f), &info, sizeof(info));
}
