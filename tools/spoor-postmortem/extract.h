/*
 * extract: a trace area (a frozen copy, dump.h) as a saved trace file
 * (abi/trace_file.h), holding what `trace save` with no filter would
 * have: every CPU's events read from index 0 to its head with the ring
 * reader of common/trace_ring.c (R1-R5), merged in timestamp order with
 * each CPU's own order exact, loss markers where the reader counted loss,
 * the aux buffer's durable part and a consistent copy of its ring (A1,
 * A2), and each CPU's ledger (ACCOUNTING).
 *
 * A stopped machine can leave a slot half written for good (a CPU stopped
 * between W1 and W3, by a panic or a wedge). The reader would wait for it
 * for ever; here it is counted lost, and the events after it are read on
 * (its continuations, if any, are orphans and counted lost too). So the
 * ledger stays exact: what a CPU's markers add up to is what the reader
 * skipped. A clear stopped half-way (clear_seq odd) leaves counters that
 * may be off by that clear: the file is written, and partial says so.
 *
 * A corrupt dump (bytes no writer stores) gives a file all the same,
 * marked as partial: an event that names another CPU, has a timestamp
 * no writer stores or a loss marker's kind is counted lost, and the aux parts are cut before the
 * first bytes that are not a record.
 */
#ifndef SPOOR_TOOLS_POSTMORTEM_EXTRACT_H
#define SPOOR_TOOLS_POSTMORTEM_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_header.h"

struct extract_result {
	uint8_t *bytes; /* the file, malloc()ed */
	size_t len;
	uint64_t events;
	uint64_t lost;
	uint32_t stuck;	  /* slots left half written, counted lost */
	uint64_t corrupt; /* entries of impossible events (another CPU's, bad ts or kind): lost */
	uint64_t aux_cut; /* aux bytes left out from the first that is not a record on */
	int partial;	  /* a counter snapshot was taken mid-clear */
};

/* Writes area a's trace as a file into *res. 0, or -1 with why set (out of memory). */
int extract_file(const struct ttrace_area *a, struct extract_result *res, char *why,
		 size_t why_size);

#endif
