/*
 * line: the shell's line editor on the console (echo, backspace, Ctrl-U,
 * Ctrl-C), which reports background jobs that end while it waits.
 */
#ifndef SPOOR_INIT_SHELL_LINE_H
#define SPOOR_INIT_SHELL_LINE_H

#include <stdbool.h>

/*
 * Reads one edited line into line (LINE_MAX bytes); false when Ctrl-C
 * cancelled it or it was longer than the buffer (said on the console).
 */
bool shell_read_line(char *line);

#endif
