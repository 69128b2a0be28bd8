/*
 * seal: a recording's checksums, computed on the host (seal.h). The sum
 * is the file's word-wise checksum of minor 2 on (common/fnv.h), over the
 * file's bytes in order, each checksum word included once written, so
 * the file is exactly the one traced would have written had it summed
 * the bytes itself: readers need nothing new.
 */
#include "tools/spoor-receive/seal.h"

#include <string.h>

#include "abi/trace_file.h"
#include "common/fnv.h"

#define HEAD sizeof(struct ttrace_file_section)

/* The sum carried over p[from, to): bytes already checked to lie in the record. */
static uint64_t over(uint64_t sum, const uint8_t *p, uint64_t from, uint64_t to)
{
	return ttrace_sum_words(sum, p + from, to - from);
}

const char *seal_record(struct seal *s, uint8_t *p, uint64_t len)
{
	uint64_t sum = s->sum, at = 0, done = 0;

	if (len % 8) {
		return "a recording's record is not whole words";
	}
	if (!s->begun) {
		struct ttrace_file_header h;
		if (len < sizeof(h)) {
			return "a recording's first record is shorter than the file header";
		}
		memcpy(&h, p, sizeof(h));
		if (h.header_size < sizeof(h) || h.header_size % 8 || h.header_size > len) {
			return "a recording's file header has a bad size";
		}
		at = h.header_size;
	}
	while (at < len) {
		struct ttrace_file_section sec;
		if (len - at < HEAD) {
			return "a recording's record ends inside a section's head";
		}
		memcpy(&sec, p + at, HEAD);
		if (sec.size % 8 || sec.size > len - at - HEAD) {
			return "a recording's section does not fit its record";
		}
		uint64_t next = at + HEAD + sec.size;
		if (sec.type == TTRACE_FILE_CHUNK) {
			/* Its last word: the checksum of every byte of the file before it. */
			if (sec.size < sizeof(uint64_t)) {
				return "a recording's chunk has no room for its checksum";
			}
			uint64_t word = next - sizeof(uint64_t);
			sum = over(sum, p, done, word);
			memcpy(p + word, &sum, sizeof(sum));
			done = word;
		} else if (sec.type == TTRACE_FILE_END) {
			/* Its checksum: of the file's bytes before the section's head. */
			struct ttrace_file_end e;
			if (sec.size < sizeof(e)) {
				return "a recording's end is too short";
			}
			sum = over(sum, p, done, at);
			done = at;
			memcpy(&e, p + at + HEAD, sizeof(e));
			e.checksum = sum;
			memcpy(p + at + HEAD, &e, sizeof(e));
		}
		at = next;
	}
	s->sum = over(sum, p, done, len);
	s->begun = true;
	return NULL;
}
