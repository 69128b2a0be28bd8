/*
 * fnv: FNV-1a, 64 bits, the checksum of saved trace files and of the
 * export channel (abi/trace_file.h). Start from TTRACE_FNV_OFFSET and
 * feed the bytes in order, in as many pieces as convenient.
 */
#ifndef SPOOR_COMMON_FNV_H
#define SPOOR_COMMON_FNV_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace_file.h"

static inline uint64_t ttrace_fnv1a(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++) {
		h = (h ^ p[i]) * TTRACE_FNV_PRIME;
	}
	return h;
}

#endif
