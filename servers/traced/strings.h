/*
 * strings: STRINGS pages, the aux buffer's records as lines.
 */
#ifndef SPOOR_TRACED_STRINGS_H
#define SPOOR_TRACED_STRINGS_H

#include "servers/traced/request.h"

/* STRINGS: one page of aux records. 0 or -EINVAL. */
int strings_page(const struct request *req, struct reply *rep);

#endif
