/*
 * probe_table: the instruction boundaries of the kernel's text and the
 * extent of each function, a table tools/kinsns makes at build time from
 * the first link's disassembly and the second link carries in .rodata
 * (as the symbol table, lib/ksyms.h). The probes (probe.h) are set only
 * where it says an instruction starts. Read-only data; any context.
 */
#ifndef SPOOR_TRACE_PROBE_TABLE_H
#define SPOOR_TRACE_PROBE_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define PROBE_TABLE_NMI 1u /* a function's flag: it can run in an NMI */

/* Whether the kernel has the table (the first link has none). */
bool probe_table_present(void);

/*
 * The size of the function that starts at start and its PROBE_TABLE_*
 * flags: true, or false when the table has no function there (one
 * written in assembly without a size).
 */
bool probe_table_function(uint64_t start, uint32_t *size, uint32_t *flags);

/* Whether an instruction starts at addr. */
bool probe_table_boundary(uint64_t addr);

/*
 * The length of the instruction at addr, a boundary inside a function
 * that ends at end: up to the next boundary, or end.
 */
uint32_t probe_table_length(uint64_t addr, uint64_t end);

#endif
