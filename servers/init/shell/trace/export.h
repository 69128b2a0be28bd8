/*
 * export: what `trace save` and `trace record` share, the verbs that
 * write NAME.spoor to the host through traced's export channel.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_EXPORT_H
#define SPOOR_INIT_SHELL_TRACE_EXPORT_H

#include <stdbool.h>

#include "servers/init/shell/trace/verb.h"

/*
 * A verb's "as NAME" (last): checked, copied into name (TRACED_SAVE_NAME_MAX
 * bytes) and taken off *argc; false, having said why, if it is wrong.
 */
bool export_name(const struct verb *verb, int *argc, char **argv, char *name);

/* Says why a request that writes NAME.spoor to the host failed (one line); true if it did. */
bool export_failed(long err, const char *name);

#endif
