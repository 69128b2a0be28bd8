/*
 * spawn: starting a program as a new process, with argv and capabilities
 * copied from the parent (abi/proc.h describes the request).
 */
#ifndef SPOOR_PROC_SPAWN_H
#define SPOOR_PROC_SPAWN_H

#include <stdint.h>

#include "abi/proc.h"
#include "init/boot_info.h"

struct process;

/* A spawn request with everything copied into the kernel. */
struct spawn_request {
	char name[BOOT_MODULE_NAME_MAX];
	char args[SPAWN_ARGS_MAX];
	uint32_t args_len;
	uint32_t ncaps;
	struct spawn_cap caps[SPAWN_CAPS_MAX];
	uint64_t mem_limit; /* abi/proc.h MEMORY */
	uint32_t flags;	    /* SPAWN_* */
};

/*
 * Copies the strings and capability list args points to. 0, -EFAULT,
 * -EINVAL (unknown flags, reserved not 0), -E2BIG.
 */
int spawn_decode(const struct spawn_args *args, struct spawn_request *req);

struct cap;

/*
 * Starts req's program as a child of parent (its main thread held until
 * process_start() for SPAWN_STOPPED). Returns the slot of a process
 * capability (wait, kill, start, grant) in parent's table; -ENOENT (no such
 * program), -EBADF, -ECAPKIND, -EACCES (a capability to pass), -EINVAL,
 * -ENOMEM, -ENOSPC, -EAGAIN (parent's tree is full: PROC_TREE_MAX in
 * abi/proc.h), -EPERM (SPAWN_KEPT or mem_limit from other than init).
 * The kernel starts init with parent NULL: then the
 * capabilities come from boot_caps (req->caps[i].src indexes it) and 0 is
 * returned.
 */
int spawn(struct process *parent, const struct spawn_request *req, const struct cap *boot_caps);

#endif
