/*
 * static_branch: rewrites the sites of .static_branches (static_branch.h)
 * between their NOP and their jump. The callers guarantee that no CPU
 * runs them meanwhile, so the five bytes need not change in one store:
 * a stopped CPU waits at an instruction boundary, never inside a site,
 * and serialises before it runs on (smp_stop_others()).
 */
#include "arch/x86_64/static_branch.h"

#include <stddef.h>

#include "lib/string.h"
#include "mm/memlayout.h"

#define SITE_BYTES   5
#define OP_JMP_REL32 0xe9 /* SDM 2A JMP: E9 cd, relative to the next instruction */

extern const struct static_branch_site _static_branches_start[], _static_branches_end[];

/* The NOP static_branch() emits. */
static const uint8_t nop5[SITE_BYTES] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* The address an entry's field holds as an offset from itself. */
static uintptr_t address(const int32_t *field)
{
	return (uintptr_t)field + (uintptr_t)(intptr_t)*field;
}

/* The five bytes the site at code holds to jump to target. */
static void jump_to(uintptr_t code, uintptr_t target, uint8_t insn[SITE_BYTES])
{
	/* the target is in the kernel's text, well within 2 GiB of the site */
	int32_t rel = (int32_t)(target - (code + SITE_BYTES));

	insn[0] = OP_JMP_REL32;
	memcpy(insn + 1, &rel, sizeof(rel));
}

bool static_branch_covers(uintptr_t addr, uint32_t len)
{
	size_t n = ((uintptr_t)_static_branches_end - (uintptr_t)_static_branches_start) /
		   sizeof(struct static_branch_site);

	for (size_t i = 0; i < n; i++) {
		uintptr_t code = address(&_static_branches_start[i].code);

		if (addr < code + SITE_BYTES && code < addr + len) {
			return true;
		}
	}
	return false;
}

void static_branches_set(uint64_t mask)
{
	/* kernel.ld's bounds of one array, which C would take for two objects */
	size_t n = ((uintptr_t)_static_branches_end - (uintptr_t)_static_branches_start) /
		   sizeof(struct static_branch_site);

	for (size_t i = 0; i < n; i++) {
		const struct static_branch_site *s = &_static_branches_start[i];
		uintptr_t code = address(&s->code);
		uint8_t want[SITE_BYTES];

		if (s->key & mask) {
			jump_to(code, address(s->alt_key & mask ? &s->alt_target : &s->target),
				want);
		} else {
			memcpy(want, nop5, SITE_BYTES);
		}
		if (memcmp((const void *)code, want, SITE_BYTES)) {
			/* The text is mapped read-only; its direct-map alias is writable. */
			memcpy(phys_to_virt(virt_to_phys((const void *)code)), want, SITE_BYTES);
		}
	}
}
