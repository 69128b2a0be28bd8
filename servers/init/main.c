/*
 * init: started by the kernel with the console (every right) in its
 * console slot. Runs the shell until halt.
 */
#include <stdio.h>

#include "init.h"

int main(void)
{
	char line[LINE_MAX];

	printf("init: shell on the console (type help)\n");
	for (;;) {
		jobs_reap();
		printf(INIT_PROMPT);
		fflush(stdout);
		if (shell_read_line(line)) {
			shell_run(line);
		}
	}
}
