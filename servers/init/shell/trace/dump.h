/*
 * dump: `trace dump [FILTERS]`, and the printing of a dump that `trace
 * run` shares.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_DUMP_H
#define SPOOR_INIT_SHELL_TRACE_DUMP_H

#include <trace_client.h>

#include "servers/init/shell/trace/verb.h"

/* dump [FILTERS]: the events that pass the filters, oldest first. */
void dump_verb(const struct verb *verb, int argc, char **argv);

/*
 * Prints the dump f and pred (NULL: none) select, page by page, until its
 * end or a Ctrl-C.
 */
void dump_print(const struct traced_filter *f, const struct traced_pred *pred);

/*
 * The number of events a dump with filter f and pred (NULL: none) would
 * print now, or -E* if traced did not answer.
 */
long long dump_size(const struct traced_filter *f, const struct traced_pred *pred);

#endif
