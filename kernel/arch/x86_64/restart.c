/*
 * restart: moves a stopped CPU's instruction pointer back to the start of
 * the restartable range it was stopped in (restart.h).
 */
#include "arch/x86_64/restart.h"

#include <stddef.h>

#include "arch/x86_64/idt.h"

extern const struct restart_range _restart_ranges_start[], _restart_ranges_end[];

/* The address an entry's field holds as an offset from itself. */
static uintptr_t address(const int32_t *field)
{
	return (uintptr_t)field + (uintptr_t)(intptr_t)*field;
}

void restart_fixup(struct trap_frame *f)
{
	/* kernel.ld's bounds of one array, which C would take for two objects */
	size_t n = ((uintptr_t)_restart_ranges_end - (uintptr_t)_restart_ranges_start) /
		   sizeof(struct restart_range);

	if (f->cs & 3) {
		return; /* user code: no range is there */
	}
	for (size_t i = 0; i < n; i++) {
		uintptr_t start = address(&_restart_ranges_start[i].start);

		if (f->rip > start && f->rip < address(&_restart_ranges_start[i].end)) {
			f->rip = start;
			return;
		}
	}
}
