/*
 * probe_table: lookups in the table tools/kinsns writes (probe_table.h).
 * Its symbols are weak: the first link, from which it is made, has none.
 */
#include "trace/probe_table.h"

struct kinsns_func {
	uint64_t start;
	uint32_t size;
	uint32_t flags; /* PROBE_TABLE_* */
};

_Static_assert(sizeof(struct kinsns_func) == 16, "tools/kinsns: .quad, then two .long");

extern const uint64_t kinsns_text __attribute__((weak));
extern const uint32_t kinsns_text_len __attribute__((weak));
extern const uint64_t kinsns_bits[] __attribute__((weak));
extern const struct kinsns_func kinsns_funcs[] __attribute__((weak));
extern const uint32_t kinsns_func_count __attribute__((weak));

#define BITS 64

bool probe_table_present(void)
{
	return &kinsns_text_len && kinsns_text_len;
}

bool probe_table_function(uint64_t start, uint32_t *size, uint32_t *flags)
{
	uint32_t lo = 0, hi = probe_table_present() ? kinsns_func_count : 0;

	/* binary search: the table is sorted by address */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (kinsns_funcs[mid].start < start) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (; lo < kinsns_func_count && kinsns_funcs[lo].start == start; lo++) {
		/* an alias of size 0 (a label) may share the address: the function has a size */
		if (kinsns_funcs[lo].size) {
			*size = kinsns_funcs[lo].size;
			*flags = kinsns_funcs[lo].flags;
			return true;
		}
	}
	return false;
}

bool probe_table_boundary(uint64_t addr)
{
	uint64_t off = addr - kinsns_text;

	if (!probe_table_present() || addr < kinsns_text || off >= kinsns_text_len) {
		return false;
	}
	return kinsns_bits[off / BITS] >> (off % BITS) & 1;
}

uint32_t probe_table_length(uint64_t addr, uint64_t end)
{
	uint64_t next = addr + 1;

	while (next < end && !probe_table_boundary(next)) {
		next++;
	}
	return (uint32_t)(next - addr);
}
