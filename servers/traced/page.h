/*
 * page: what the paged replies (DUMP, FOLLOW, STRINGS, EVENTS, STATS)
 * share: the checks of the cursor a client sends back, and the head in
 * front of a page.
 */
#ifndef SPOOR_TRACED_PAGE_H
#define SPOOR_TRACED_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/traced.h"
#include "servers/traced/request.h"

/*
 * Checks what every cursor traced gave out has: its magic, the area's CPU
 * count, nothing for CPUs the area lacks. 0 or -EINVAL.
 */
int page_cursor_check(const struct traced_cursor *c);

/*
 * A listing (STRINGS, EVENTS) keeps its position in next[0] and may use
 * end[0]. page_listing_check() takes a zeroed cursor (a new listing) or
 * one with nothing else set, next[0] <= next_max and end[0] <= end_max:
 * 0 or -EINVAL. page_listing_at() moves one to next.
 */
int page_listing_check(const struct traced_cursor *c, uint64_t next_max, uint64_t end_max);
void page_listing_at(struct traced_cursor *c, uint64_t next);

/*
 * Writes the reply's head in front of the len data bytes already at
 * rep->buf + sizeof(struct traced_dump_reply).
 */
void page_finish(struct reply *rep, const struct traced_cursor *c, bool done, uint32_t len,
		 uint32_t count);

#endif
