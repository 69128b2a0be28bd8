/*
 * strings: `trace strings [SET]`, the aux buffer's strings.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_STRINGS_H
#define SPOOR_INIT_SHELL_TRACE_STRINGS_H

#include <stddef.h>

#include "servers/init/shell/trace/verb.h"

/* strings [SET]: the aux strings, of one set or all. */
void strings_verb(const struct verb *verb, int argc, char **argv);

/* The sets' names (the aux tags'), "syscalls kinds ...", separated by sep, cut to size. */
void strings_sets(char *buf, size_t size, const char *sep);

#endif
