/*
 * traced_words: the words of `trace hist MEASURE [KEY=VALUE]` turned into
 * a STATS request (abi/traced.h), and the names of measures, their keys,
 * IPC paths and page-fault outcomes, from abi/'s lists (one each). The
 * shell and programs reach them through libc's trace_client.h, traced
 * and spoor-trace print answers with them: one parser, one set of names.
 */
#ifndef SPOOR_COMMON_TRACED_WORDS_H
#define SPOOR_COMMON_TRACED_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "abi/traced.h"

/*
 * Parses the words of a histogram request, MEASURE [KEY=VALUE] [path=P]
 * (syscall name=NAME, ipc endpoint=N path=fast|slow, pf outcome=NAME,
 * wakeup cpu=N; without a key, every row of the measure) into *r as a
 * TRACED_STATS_HIST request (its filter still zero). Returns how many
 * words it took (the rest are filter words), or -EINVAL with one line in
 * why saying what is accepted.
 */
int traced_hist_parse(int argc, char *const argv[], struct traced_stats_request *r, char *why,
		      size_t why_size);

/*
 * The names the words above accept, for printing a row back: a measure's
 * name and its key, an IPC path, a page-fault outcome; "?" when out of range.
 */
const char *traced_measure_name(uint32_t measure);
const char *traced_measure_key(uint32_t measure);
const char *traced_path_name(uint32_t path);
const char *traced_outcome_name(uint64_t outcome);

#endif
