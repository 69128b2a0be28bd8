/*
 * file: what a save and a recording write alike: the file's header and
 * the rule for its name.
 */
#ifndef SPOOR_TRACED_FILE_H
#define SPOOR_TRACED_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/traced.h"

/*
 * The file header (abi/trace_file.h) a save or a recording starts with:
 * the area's geometry and clock as they are now, the filter f, saved_ns.
 */
struct ttrace_file_header;
void file_fill_header(struct ttrace_file_header *fh, const struct traced_filter *f,
		      uint64_t saved_ns);

/*
 * A SAVE or RECORD name the host can use as it is: [A-Za-z0-9._-], not
 * starting with '.', NUL-padded to TRACED_SAVE_NAME_MAX.
 */
bool file_name_ok(const char *name);

#endif
