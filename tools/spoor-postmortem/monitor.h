/*
 * monitor: has a running QEMU write its guest's memory to a file, through
 * the QMP socket tools/run-qemu opens (RUN-FOLDER/.monitor). QMP answers
 * with JSON lines; the few this client needs are told apart by their
 * first member ("QMP" greeting, "return", "error", "event"), which QMP
 * always puts on one line each.
 */
#ifndef SPOOR_TOOLS_POSTMORTEM_MONITOR_H
#define SPOOR_TOOLS_POSTMORTEM_MONITOR_H

#include <stddef.h>

/*
 * Connects to the QMP socket at path and runs dump-guest-memory into the
 * file out (an absolute path: QEMU opens it; a file there is replaced),
 * waiting until it is written. 0, or -1 with why set.
 */
int monitor_dump(const char *socket_path, const char *out, char *why, size_t why_size);

#endif
