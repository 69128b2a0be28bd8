/*
 * hello: prints its arguments, one line each, and exits with the status
 * that an `exit=N` argument asks for (0 without one). The shell's tests
 * use it to see that argv arrives intact and that exit statuses come back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_PREFIX "exit="

int main(int argc, char **argv)
{
	int status = 0;

	printf("hello: argc=%d\n", argc);
	for (int i = 0; i < argc; i++) {
		printf("hello: argv[%d]='%s'\n", i, argv[i]);
		if (!strncmp(argv[i], EXIT_PREFIX, strlen(EXIT_PREFIX))) {
			status = atoi(argv[i] + strlen(EXIT_PREFIX));
		}
	}
	return status;
}
