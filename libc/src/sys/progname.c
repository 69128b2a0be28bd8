/*
 * progname: the program's name as start.c finds it in argv[0], for the
 * lines libc writes itself (__libc_fatal). Its own file, below both the
 * start-up that sets it and the exits that read it.
 */
#include "libc/src/internal.h"

const char *__libc_progname = "?";
