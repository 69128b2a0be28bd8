/*
 * System call numbers, generated from syscalls.def: SYS_exit, SYS_yield, ...
 */
#ifndef SPOOR_ABI_SYSCALL_H
#define SPOOR_ABI_SYSCALL_H

enum {
#define SYSCALL(nr, name, nargs) SYS_##name = nr,
#include "syscalls.def"
#undef SYSCALL
	SYS_COUNT
};

#endif
