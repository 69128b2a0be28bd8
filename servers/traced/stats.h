/*
 * stats: STATS, counts and latencies over the events a DUMP would return.
 */
#ifndef SPOOR_TRACED_STATS_H
#define SPOOR_TRACED_STATS_H

#include "servers/traced/request.h"

/* STATS: one page of the answer. 0, -EINVAL, or -EBUSY for a write that never ended. */
int stats_page(const struct request *req, struct reply *rep);

#endif
