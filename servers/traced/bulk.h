/*
 * bulk: BULK, a binary DUMP page written into the caller's frame.
 */
#ifndef SPOOR_TRACED_BULK_H
#define SPOOR_TRACED_BULK_H

#include "servers/traced/request.h"

/* BULK: one page of a binary DUMP into the caller's frame. 0 or -E*. */
int bulk_page(const struct request *req, struct reply *rep);

#endif
