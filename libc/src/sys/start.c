/*
 * start: the C half of program start-up, called by crt0.S with argc and
 * argv from the initial stack. stdio and malloc need no set-up (their
 * state is static and ready), so this only records the program's name
 * (progname.c) and runs main().
 */
#include <stdlib.h>

#include "libc/src/internal.h"

int main(int argc, char **argv);

/* Returning from main() is exit() with its value, as in C. */
__attribute__((noreturn)) void __libc_start(long argc, char **argv)
{
	if (argc > 0 && argv[0] && argv[0][0]) {
		__libc_progname = argv[0];
	}
	exit(main((int)argc, argv));
}
