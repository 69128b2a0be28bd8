/*
 * init: started by the kernel with the console (every right) in its
 * console slot. Starts the servers, then runs the shell until halt.
 */
#include <stdio.h>
#include <string.h>

#include "console.h"
#include "jobs.h"
#include "services.h"
#include "shell/commands.h"
#include "shell/line.h"

int main(void)
{
	char line[LINE_MAX];

	int err = services_init();
	if (err) {
		printf("init: cannot start the servers: %s\n", strerror(-err));
	}
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
