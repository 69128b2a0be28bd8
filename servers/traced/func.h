/*
 * func: traced's function-tracer operations (abi/trace_func.h), FUNC_ON
 * and FUNC_OFF, GRAPH_ON and GRAPH_OFF: the patterns go to the kernel as
 * the client sent them, and the category func follows, on while any
 * function is traced, the graph has a root or a kernel probe is set
 * (probe.h).
 */
#ifndef SPOOR_TRACED_FUNC_H
#define SPOOR_TRACED_FUNC_H

#include "servers/traced/request.h"

/* FUNC_ON and FUNC_OFF: the number of functions traced afterwards in result; 0 or -E*. */
int func_on(const struct request *req, struct reply *rep);
int func_off(const struct request *req, struct reply *rep);

/* GRAPH_ON: the number of the graph's roots in result; GRAPH_OFF. 0 or -E*. */
int graph_on(const struct request *req, struct reply *rep);
int graph_off(const struct request *req, struct reply *rep);

#endif
