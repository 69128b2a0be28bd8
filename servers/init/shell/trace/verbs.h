/*
 * verbs: the shell's `trace` command and the list of its verbs.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_VERBS_H
#define SPOOR_INIT_SHELL_TRACE_VERBS_H

#include <stddef.h>

/* trace VERB ...: runs the verb; `trace` alone lists them all. */
void verbs_run(int argc, char **argv);

/* The verbs' names, "on off ...", separated by sep, cut to size. */
void verbs_format(char *buf, size_t size, const char *sep);

#endif
