/*
 * ksyms: the kernel's own symbol table, which the build links into it
 * (tools/ksyms, the Makefile's second link of kernel.elf): names for
 * kernel text addresses without a host, for the panic block's stack
 * walk. Read-only data; any context.
 */
#ifndef SPOOR_LIB_KSYMS_H
#define SPOOR_LIB_KSYMS_H

#include <stdint.h>

/*
 * The function addr is in, and addr's offset into it in *offset (below
 * 64 KiB); NULL when no function of the table holds it (or the table was
 * not linked).
 */
const char *ksyms_lookup(uint64_t addr, uint64_t *offset);

/* The number of functions in the table: 0 without one (the first link). */
uint32_t ksyms_total(void);

/* Function i's name, its address in *addr; i below ksyms_total(). */
const char *ksyms_at(uint32_t i, uint64_t *addr);

/* The index of the function that starts at addr, or -1 if none does. */
int64_t ksyms_index(uint64_t addr);

#endif
