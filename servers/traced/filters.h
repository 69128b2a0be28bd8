/*
 * filters: FILTER and FILTER_TEXT (abi/traced.h). traced compiles a
 * filter's text for each kind it is set on (common/trace_pred_parse.h)
 * and hands the kernel the bytecode (trace_filter, abi/trace_pred.h); it
 * keeps each kind's text for `trace status` in the kernel's note beside
 * the program (abi/trace_pred.h, NOTES), so a restarted traced shows the
 * texts the one before it set.
 */
#ifndef SPOOR_TRACED_FILTERS_H
#define SPOOR_TRACED_FILTERS_H

#include "servers/traced/request.h"

/* FILTER: sets or removes the filter of the request's targets. */
int filters_set(const struct request *req, struct reply *rep);

/* FILTER_CODE: sets a kind's filter to a client's bytecode, which the kernel checks. */
int filters_code(const struct request *req, struct reply *rep);

/* FILTER_TEXT: the text of the filter of the kind in word 1. */
int filters_text(const struct request *req, struct reply *rep);

#endif
