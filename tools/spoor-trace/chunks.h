/*
 * chunks: the checks of a recording (abi/trace_file.h, A RECORDING), for
 * file.c's tfile_parse().
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_CHUNKS_H
#define SPOOR_TOOLS_SPOOR_TRACE_CHUNKS_H

#include <stdint.h>

#include "tools/spoor-trace/file_parse.h"

/* A recording's sections from off: 0, -EINVAL with the refusal in p->why, or -ENOMEM. */
int chunks_parse(struct parser *p, uint64_t off);

#endif
