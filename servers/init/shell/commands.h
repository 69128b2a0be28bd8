/*
 * commands: the shell's commands (help, ps, run, trace, ...), one
 * function each, found through one table.
 */
#ifndef SPOOR_INIT_SHELL_COMMANDS_H
#define SPOOR_INIT_SHELL_COMMANDS_H

/* Runs one command line; a wrong one gets a line saying what is accepted. */
void shell_run(char *line);

#endif
