/*
 * libc_host_check: the compile-time check of tests/host/libc_host.h
 * against libc's own headers. libc/host.mk compiles this file like libc's
 * host objects (against libc/include, not the host's headers), after a
 * generated header that defines every spoor_<name> back to <name>, for
 * each symbol the renaming of libc/host.mk renamed. Each declaration of
 * libc_host.h then redeclares libc's own, and C refuses a redeclaration
 * whose type differs: a prototype that drifted from libc/include is a
 * build error. The hooks keep their names and meet libc/src/internal.h
 * the same way. Nothing here is linked. The includes below are every
 * libc header libc_host.h mirrors: one it comes to mirror goes here too.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc/src/internal.h"

/* libc_host.h's opaque FILE is libc's (libc/include/stdio.h: struct file). */
#define spoor_file file

#include "tests/host/libc_host.h"
