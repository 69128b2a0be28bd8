/*
 * System call numbers, generated from syscalls.def: SYS_exit, SYS_yield, ...
 */
#ifndef SPOOR_ABI_SYSCALL_H
#define SPOOR_ABI_SYSCALL_H

#include <stdint.h>

/*
 * Timeouts (wait, console_read, IPC) are in nanoseconds: 0 only polls,
 * TIMEOUT_FOREVER waits without a limit.
 */
#define TIMEOUT_FOREVER UINT64_MAX

enum {
#define SYSCALL(nr, name, nargs) SYS_##name = nr,
#include "syscalls.def"
#undef SYSCALL
	SYS_COUNT
};

#endif
