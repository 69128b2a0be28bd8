/*
 * dump: DUMP and FOLLOW pages, and the checks every DUMP-like request
 * (BULK, SAVE, RECORD, STATS) shares with them.
 */
#ifndef SPOOR_TRACED_DUMP_H
#define SPOOR_TRACED_DUMP_H

#include <stdint.h>
#include "abi/traced.h"
#include "servers/traced/merge.h"
#include "servers/traced/request.h"
#include "servers/traced/scope.h"

/* DUMP and FOLLOW (op): one page of events. 0 or -EINVAL. */
int dump_page(uint32_t op, const struct request *req, struct reply *rep);

/*
 * The checks every DUMP-like request (op DUMP or FOLLOW) passes: its body
 * copied into *r and checked, its predicate compiled into *piece's pred
 * (servers/traced/pred.h), and the scope of its caller (scope_request)
 * into its scope. 0, or -EINVAL or scope_request()'s error.
 */
int dump_request(uint32_t op, const struct request *req, struct traced_dump_request *r,
		 struct merge_piece *piece);

/* Checks a filter and cursor as a request's (op DUMP or FOLLOW): 0 or -EINVAL. */
int dump_check(uint32_t op, const struct traced_filter *f, const struct traced_cursor *c);

/*
 * What the losses of a finished dump's cursor c mean for its question
 * (with libc's traced_losses_format()): appended to b.
 */
struct format_buf;
void dump_losses(struct format_buf *b, const struct traced_cursor *c);

#endif
