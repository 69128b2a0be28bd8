/*
 * usercopy: range checks around the assembly copy loop (usercopy.S).
 */
#include "mm/usercopy.h"

#include "abi/errno.h"
#include "arch/x86_64/percpu.h"
#include "mm/memlayout.h"
#include "trace/ktrace.h"

long usercopy(void *dst, const void *src, size_t n);
extern char usercopy_start[], usercopy_end[], usercopy_fixup[], usercopy_fixup_nomem[];

_Static_assert(EFAULT == 14 && ENOMEM == 12, "usercopy.S returns them as numbers");

static int user_range_ok(uint64_t addr, size_t len)
{
	return addr < USER_TOP && len <= USER_TOP - addr;
}

int copy_from_user(void *dst, uint64_t usrc, size_t len)
{
	if (!user_range_ok(usrc, len)) {
		return -EFAULT;
	}
	TTRACE(mem_copy, usrc, len, TTRACE_COPY_FROM_USER);
	return len ? (int)usercopy(dst, (const void *)(uintptr_t)usrc, len) : 0;
}

int copy_to_user(uint64_t udst, const void *src, size_t len)
{
	if (!user_range_ok(udst, len)) {
		return -EFAULT;
	}
	TTRACE(mem_copy, udst, len, TTRACE_COPY_TO_USER);
	return len ? (int)usercopy((void *)(uintptr_t)udst, src, len) : 0;
}

int copy_from_user_nofault(void *dst, uint64_t usrc, size_t len)
{
	struct cpu *c = this_cpu();

	if (!user_range_ok(usrc, len)) {
		return -EFAULT;
	}
	/* the compiler barriers keep the copy between the two: trap.c reads the flag */
	c->usercopy_nofault++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int err = len ? (int)usercopy(dst, (const void *)(uintptr_t)usrc, len) : 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->usercopy_nofault--;
	return err;
}

int copy_string_from_user(char *dst, uint64_t usrc, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		int err = copy_from_user(&dst[i], usrc + i, 1);
		if (err) {
			return err;
		}
		if (!dst[i]) {
			return (int)i;
		}
	}
	return -E2BIG;
}

int usercopy_contains(uint64_t rip)
{
	return rip >= (uintptr_t)usercopy_start && rip < (uintptr_t)usercopy_end;
}

uint64_t usercopy_fixup_rip(bool no_memory)
{
	return (uintptr_t)(no_memory ? usercopy_fixup_nomem : usercopy_fixup);
}
