/*
 * ksyms: a binary search of the table tools/ksyms writes. The table's
 * symbols are weak: the first link, from whose addresses the table is
 * made, has none, and there lookups find nothing.
 */
#include "lib/ksyms.h"

#include <stddef.h>

extern const uint64_t ksyms_addr[] __attribute__((weak));
extern const uint32_t ksyms_name_off[] __attribute__((weak));
extern const uint32_t ksyms_count __attribute__((weak));
extern const char ksyms_names[] __attribute__((weak));
extern char _text_end[];

/*
 * No function is longer: an address further past the last symbol below it
 * lies in a gap (between the boot code and the kernel's text), not in it.
 */
#define FUNCTION_MAX 0x10000

/* The index of the last function starting at or below addr; the table has one. */
static uint32_t below(uint64_t addr)
{
	uint32_t lo = 0, hi = ksyms_count;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ksyms_addr[mid] <= addr) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return lo;
}

const char *ksyms_lookup(uint64_t addr, uint64_t *offset)
{
	if (!ksyms_total() || addr < ksyms_addr[0] || addr >= (uintptr_t)_text_end) {
		return NULL;
	}
	uint32_t lo = below(addr);
	if (addr - ksyms_addr[lo] >= FUNCTION_MAX) {
		return NULL;
	}
	*offset = addr - ksyms_addr[lo];
	return ksyms_names + ksyms_name_off[lo];
}

uint32_t ksyms_total(void)
{
	return &ksyms_count ? ksyms_count : 0;
}

const char *ksyms_at(uint32_t i, uint64_t *addr)
{
	*addr = ksyms_addr[i];
	return ksyms_names + ksyms_name_off[i];
}

int64_t ksyms_index(uint64_t addr)
{
	if (!ksyms_total() || addr < ksyms_addr[0]) {
		return -1;
	}
	uint32_t i = below(addr);
	return ksyms_addr[i] == addr ? (int64_t)i : -1;
}
