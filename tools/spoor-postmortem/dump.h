/*
 * dump: a guest's physical memory as QEMU's dump-guest-memory writes it
 * (an ELF64 core whose PT_LOAD segments carry guest physical addresses in
 * p_paddr), and the trace area found in it.
 *
 * FINDING THE AREA. The kernel allocates the area as one physically
 * contiguous run of frames, page aligned, starting with struct
 * ttrace_header (abi/trace.h), and records its physical address in a
 * variable whose own address kernel.elf gives (ksym.h). Any program can
 * forge a whole valid area in its memory, so the area taken is the one
 * the kernel recorded, and no other, even when it is refused; with no
 * kernel.elf known, the only one that passes is, and a dump with more is
 * refused. To count the pages that pass, the finder looks at the start
 * of every page for TTRACE_MAGIC and checks the header there alone with
 * common/trace_header.c's checks (the same checks traced makes on its
 * mapping), and that the dump holds every byte of the regions it names,
 * copying nothing: a hostile guest may start every page with the magic.
 * The area taken is copied, only its regions, into memory of its own and
 * checked again. The copy is frozen: the ring and aux readers (common/)
 * then run on it exactly as on a live area, with no writer.
 *
 * Bad dumps: every error is one line in why, never a crash. A dump cut
 * short (a segment past the file's end) is read as far as it goes; an
 * area that runs past what the dump holds is refused.
 */
#ifndef SPOOR_TOOLS_POSTMORTEM_DUMP_H
#define SPOOR_TOOLS_POSTMORTEM_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_header.h"

#define DUMP_SEGMENTS_MAX 64

/* One PT_LOAD segment: guest physical [paddr, paddr + len) at bytes + offset. */
struct dump_segment {
	uint64_t paddr;
	uint64_t offset;
	uint64_t len; /* what the file holds of it */
};

struct dump {
	const uint8_t *bytes;
	size_t size;
	struct dump_segment seg[DUMP_SEGMENTS_MAX];
	uint32_t nseg;
	int truncated; /* a segment ran past the file's end */
};

/* Reads the ELF header and segments of bytes[0..size). 0, or -1 with why set. */
int dump_parse(struct dump *d, const uint8_t *bytes, size_t size, char *why, size_t why_size);

/* Where dump_find_area() found the area, and how many other pages pass as one. */
struct dump_area {
	uint64_t phys;
	uint32_t others;
};

/*
 * Finds the trace area and copies it into a buffer of its own (*copy,
 * free() it), setting *a to it and *where to where it was. record is the
 * physical address of the kernel's record of the area (ksym.h
 * TTRACE_AREA_SYMBOL), or NULL when no kernel.elf is known. 0, or -1
 * with why set.
 */
int dump_find_area(const struct dump *d, const uint64_t *record, struct ttrace_area *a,
		   uint8_t **copy, struct dump_area *where, char *why, size_t why_size);

#endif
