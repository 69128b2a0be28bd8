/*
 * save: SAVE, one trace file written to the host.
 */
#ifndef SPOOR_TRACED_SAVE_H
#define SPOOR_TRACED_SAVE_H

#include "servers/traced/request.h"

/* SAVE: the whole file to the host, then the reply. 0 or -E*. */
int save_run(const struct request *req, struct reply *rep);

#endif
