/*
 * hooks: the system calls behind libc's pure code (see internal.h): pages
 * for malloc, a yield for contended locks, the console for stdio. The
 * host unit tests leave this file out and supply their own.
 */
#include <spoor.h>

#include "libc/src/internal.h"

void *__libc_pages_map(size_t len)
{
	long addr = sys_mem_map_anon(NULL, len, PROT_READ | PROT_WRITE);

	return addr < 0 ? NULL : (void *)addr;
}

/* Unmapping what __libc_pages_map() returned cannot fail; there is nothing to report. */
void __libc_pages_unmap(void *addr, size_t len)
{
	sys_mem_unmap(addr, len);
}

void __libc_yield(void)
{
	sys_yield();
}

long __libc_console_write(const void *buf, size_t len)
{
	return sys_console_write(CAP_SLOT_CONSOLE, buf, len);
}
