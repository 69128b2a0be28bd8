/*
 * memprot: the helpers every case uses (memprot.h), below the cases and
 * the list of them in main.c.
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "memprot.h"

uint64_t frames_free(void)
{
	struct sys_info info;

	sys_sys_info(&info);
	return info.frames_free;
}

uint64_t *map_anon(const char *c, uint64_t pages, uint32_t prot)
{
	long addr = sys_mem_map_anon(NULL, pages * PAGE, prot);

	if (addr < 0) {
		printf("memprot: %s FAIL: mem_map_anon of %llu pages: %s\n", c,
		       (unsigned long long)pages, strerror((int)-addr));
		return NULL;
	}
	return (uint64_t *)addr;
}
