/*
 * fnv: the checksums of saved trace files and of the export channel
 * (abi/trace_file.h, CHECKSUMS), and FNV-1a for the hashes of names.
 * Start from TTRACE_FNV_OFFSET and feed the bytes in order, in as many
 * pieces as convenient (whole words for the word-wise sum).
 */
#ifndef SPOOR_COMMON_FNV_H
#define SPOOR_COMMON_FNV_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace_file.h"

/* FNV-1a 64 over bytes: files of minor 0 and 1, and names. */
static inline uint64_t ttrace_fnv1a(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++) {
		h = (h ^ p[i]) * TTRACE_FNV_PRIME;
	}
	return h;
}

/* The word-wise checksum of files of minor 2 on; len a multiple of 8. */
static inline uint64_t ttrace_sum_words(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	/* Two slots' sixteen words a turn: the loop's own instructions once in 128 bytes. */
#pragma GCC unroll 16
	for (size_t i = 0; i < len / 8; i++) {
		uint64_t w;
		/* one load, also where -ffreestanding makes memcpy() a call */
		__builtin_memcpy(&w, p + i * 8, sizeof(w));
		h = (h ^ w) * TTRACE_FNV_PRIME;
	}
	return h;
}

/* The checksum of a file of format minor `minor` (abi/trace_file.h, CHECKSUMS). */
static inline uint64_t ttrace_file_sum(uint32_t minor, uint64_t h, const void *data, size_t len)
{
	return minor >= 2 ? ttrace_sum_words(h, data, len) : ttrace_fnv1a(h, data, len);
}

#endif
