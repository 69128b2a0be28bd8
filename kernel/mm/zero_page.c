/*
 * zero_page: the shared frame of zeros (see zero_page.h).
 */
#include "mm/zero_page.h"

#include "lib/panic.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"

static uint64_t zero_phys; /* [I] after zero_page_init() */

void zero_page_init(void)
{
	/* The allocation's reference is the only one it ever has. */
	if (pmm_alloc_frames(1, &zero_phys)) {
		panic("zero page: out of memory");
	}
	memset(phys_to_virt(zero_phys), 0, PAGE_SIZE);
}

uint64_t zero_page_phys(void)
{
	return zero_phys;
}
