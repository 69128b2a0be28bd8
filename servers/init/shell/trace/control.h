/*
 * control: `trace on`, `trace off`, `trace clear`, `trace mode`, `trace
 * echo` and `trace self`, the verbs that change what the kernel records.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_CONTROL_H
#define SPOOR_INIT_SHELL_TRACE_CONTROL_H

#include "servers/init/shell/trace/verb.h"

/* on CATS: the categories and user events (user:NAME) of a comma list. */
void control_on(const struct verb *verb, int argc, char **argv);

/* off [CATS]: the same, off (all if none given). */
void control_off(const struct verb *verb, int argc, char **argv);

/* clear: every ring's events discarded. */
void control_clear(const struct verb *verb, int argc, char **argv);

/* mode overwrite|drop: what a full ring does. */
void control_mode(const struct verb *verb, int argc, char **argv);

/* echo on|off [CATS]: the kernel's console echo of those categories (all if none). */
void control_echo(const struct verb *verb, int argc, char **argv);

/* self on|off: traced's own events recorded, or left out (the default). */
void control_self(const struct verb *verb, int argc, char **argv);

#endif
