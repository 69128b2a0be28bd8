/*
 * sys_proc: processes and threads — exit, spawn, start (a stopped one),
 * wait, kill (by capability or, within the caller's subtree, by pid),
 * getpid, and thread create, exit, join and detach.
 */
#include "abi/errno.h"
#include "abi/proc.h"

#include <stddef.h>

#include "cap/cspace.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "proc/spawn.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "syscall/syscall.h"

int64_t sys_exit(struct trap_frame *f)
{
	process_exit(process_current(), (int64_t)SYSARG0(f));
	return 0; /* the thread exits on its way back to user mode */
}

int64_t sys_getpid(struct trap_frame *f)
{
	(void)f;
	return process_current()->pid;
}

int64_t sys_spawn(struct trap_frame *f)
{
	struct spawn_args args;
	struct spawn_request *req = kzalloc(sizeof(*req));
	int64_t result;

	if (!req) {
		return -ENOMEM;
	}
	result = copy_from_user(&args, SYSARG0(f), sizeof(args));
	if (!result) {
		result = spawn_decode(&args, req);
	}
	if (!result) {
		result = spawn(process_current(), req, NULL);
	}
	kfree(req);
	return result;
}

int64_t sys_wait(struct trap_frame *f)
{
	struct cap c;
	int64_t status = 0;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_PROCESS,
			     CAP_RIGHT_WAIT, &c);

	if (err) {
		return err;
	}
	err = process_wait(c.obj, syscall_deadline(SYSARG2(f)), &status);
	cap_put(&c);
	if (!err && SYSARG1(f)) {
		err = copy_to_user(SYSARG1(f), &status, sizeof(status));
	}
	return err;
}

int64_t sys_kill(struct trap_frame *f)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_PROCESS,
			     CAP_RIGHT_KILL, &c);

	if (err) {
		return err;
	}
	process_exit(c.obj, EXIT_KILLED);
	cap_put(&c);
	return 0;
}

int64_t sys_process_start(struct trap_frame *f)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_PROCESS,
			     CAP_RIGHT_START, &c);

	if (err) {
		return err;
	}
	err = process_start(c.obj);
	cap_put(&c);
	return err;
}

int64_t sys_thread_create(struct trap_frame *f)
{
	uint64_t entry = SYSARG0(f);
	uint64_t stack_top = SYSARG1(f);

	if (entry >= USER_TOP || stack_top > USER_TOP || stack_top % 16) {
		return -EINVAL;
	}
	struct thread *t;
	int err = thread_create_user(process_current(), entry, stack_top, SYSARG2(f), 0, &t);
	if (err) {
		return err;
	}
	uint32_t tid = t->tid; /* before it runs: it may detach itself, exit and be freed */
	sched_start(t);
	return tid;
}

int64_t sys_thread_exit(struct trap_frame *f)
{
	thread_exit((int64_t)SYSARG0(f));
}

int64_t sys_thread_join(struct trap_frame *f)
{
	int64_t status;
	int err = process_join_thread(process_current(), sysarg_u32(SYSARG0(f)), &status);

	if (!err && SYSARG1(f)) {
		err = copy_to_user(SYSARG1(f), &status, sizeof(status));
	}
	return err;
}

int64_t sys_thread_detach(struct trap_frame *f)
{
	return process_detach_thread(process_current(), sysarg_u32(SYSARG0(f)));
}

int64_t sys_kill_pid(struct trap_frame *f)
{
	return process_kill_descendant(process_current(), sysarg_u32(SYSARG0(f)));
}
