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

const char *ksyms_lookup(uint64_t addr, uint64_t *offset)
{
	if (!&ksyms_count || !ksyms_count || addr < ksyms_addr[0] || addr >= (uintptr_t)_text_end) {
		return NULL;
	}
	/* the last function starting at or below addr */
	uint32_t lo = 0, hi = ksyms_count;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ksyms_addr[mid] <= addr) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	if (addr - ksyms_addr[lo] >= FUNCTION_MAX) {
		return NULL;
	}
	*offset = addr - ksyms_addr[lo];
	return ksyms_names + ksyms_name_off[lo];
}
