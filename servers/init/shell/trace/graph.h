/*
 * graph: `trace graph`, the function-graph tracer's verb (abi/trace_func.h,
 * THE GRAPH).
 */
#ifndef SPOOR_INIT_SHELL_TRACE_GRAPH_H
#define SPOOR_INIT_SHELL_TRACE_GRAPH_H

#include "servers/init/shell/trace/verb.h"

/*
 * graph FUNC... [depth=N]: record every call of the kernel functions the
 * globs match and of everything they call, entry and exit, N calls deep
 * at most; graph off: not any more. Each says what the return stacks had
 * no room for.
 */
void graph_verb(const struct verb *verb, int argc, char **argv);

#endif
