/*
 * listing: a paged text answer of traced printed to its end.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_LISTING_H
#define SPOOR_INIT_SHELL_TRACE_LISTING_H

#include <stdint.h>
#include <trace_client.h>

/* Prints a paged text listing to its end (or a Ctrl-C); returns its entries. */
uint64_t listing_print(struct traced_pager *pager);

#endif
