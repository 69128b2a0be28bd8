/*
 * zero_page: the one frame of zeros that every untouched anonymous page
 * reads until it is first written (uvm maps it read-only, and a write
 * fault gives the page a frame of its own, as for any shared frame).
 *
 * The frame is counted like any user frame: each mapping holds a
 * reference and gives it back when unmapped. zero_page_init() keeps one
 * more for good, so the count never reaches zero and the frame is never
 * freed; and since a mapped zero page always has more than one reference,
 * the fault path always copies it instead of making it writable. A count
 * is 32 bits: reaching 2^32 mappings would take 32 GiB of page tables.
 */
#ifndef SPOOR_MM_ZERO_PAGE_H
#define SPOOR_MM_ZERO_PAGE_H

#include <stdint.h>

/* Boot CPU, once, after pmm_init(): allocates and clears the frame; panics without memory. */
void zero_page_init(void);

/* The zero page's physical address. [I] after zero_page_init(). */
uint64_t zero_page_phys(void);

#endif
