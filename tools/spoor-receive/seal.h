/*
 * seal: the checksums of a recording (abi/trace_file.h, CHECKSUMS and A
 * RECORDING), which the host computes as the recording arrives, not
 * traced: under emulation the guest's instructions are the scarce ones
 * (its drain must keep up with a writer at full speed), and the host's
 * are native. Each record of a recording is a whole number of sections
 * (the file header first in the first); seal_record() walks them in a
 * copy the guest cannot change, writes each CHUNK's last word and END's
 * checksum as the checksum of the file before them, and carries the
 * running sum on. It trusts nothing in the record: a size that does not
 * fit, a section cut, a header of the wrong size is one line, and then
 * nothing of the record is to be written.
 */
#ifndef SPOOR_RECEIVE_SEAL_H
#define SPOOR_RECEIVE_SEAL_H

#include <stdbool.h>
#include <stdint.h>

/* The recording so far: the checksum of its bytes, and whether the header came. */
struct seal {
	uint64_t sum; /* of every byte of the file so far (TTRACE_FNV_OFFSET at its start) */
	bool begun;   /* the file header is in the file */
};

/*
 * Seals the record of len bytes at p (the host's copy), the file's next
 * bytes: NULL, with s moved past it, or why the record is not whole
 * sections (s unchanged; p's checksum words may be written).
 */
const char *seal_record(struct seal *s, uint8_t *p, uint64_t len);

#endif
