/*
 * stats: `trace stats` and `trace hist`, traced's answers over the
 * events, and their legend.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_STATS_H
#define SPOOR_INIT_SHELL_TRACE_STATS_H

#include <stdbool.h>
#include <trace_client.h>

#include "servers/init/shell/trace/verb.h"

/* stats [FILTERS]: counts per kind and the latencies' table. */
void stats_verb(const struct verb *verb, int argc, char **argv);

/* hist MEASURE [KEY=VALUE] [FILTERS]: a log2 histogram of one latency. */
void stats_hist(const struct verb *verb, int argc, char **argv);

/* Prints a STATS answer, page by page. */
void stats_print(const struct traced_stats_request *r);

/* `help trace VERB`: prints VERB's legend and returns true, if it has one (stats, hist). */
bool stats_help(const char *verb);

#endif
