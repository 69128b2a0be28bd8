/*
 * func: `trace func`, the function tracer's verb (abi/trace_func.h).
 */
#ifndef SPOOR_INIT_SHELL_TRACE_FUNC_H
#define SPOOR_INIT_SHELL_TRACE_FUNC_H

#include <stdbool.h>
#include <stddef.h>

#include "servers/init/shell/trace/verb.h"

/*
 * func PATTERN...: trace the kernel functions the globs match; func off
 * [PATTERN...]: not any more (all without one); func list PATTERN: what
 * matches, traced or not, and why what may not be traced is not.
 */
void func_verb(const struct verb *verb, int argc, char **argv);

/*
 * The patterns argv[0..argc) checked, each with one line when it is bad
 * (or, for on, when it matches no traceable function), and joined by
 * spaces into list (size bytes): false if one is not right.
 */
bool func_patterns(int argc, char **argv, bool on, char *list, size_t size);

#endif
