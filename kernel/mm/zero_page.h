/*
 * zero_page: the one frame of zeros that every untouched anonymous page
 * reads until it is first written (uvm maps it read-only, and a write
 * fault gives the page a frame of its own, as for any shared frame).
 *
 * Its mappings hold no references: the frame keeps the one it was
 * allocated with for good, so that no number of mappings and unmappings
 * can overflow, underflow or free it. Having no meaningful count, it
 * must never be taken for a page's own frame: the write fault path always
 * copies it. Nothing else writes it.
 */
#ifndef SPOOR_MM_ZERO_PAGE_H
#define SPOOR_MM_ZERO_PAGE_H

#include <stdint.h>

/* Boot CPU, once, after pmm_init(): allocates and clears the frame; panics without memory. */
void zero_page_init(void);

/* The zero page's physical address. [I] after zero_page_init(). */
uint64_t zero_page_phys(void);

#endif
