/*
 * jobs: the programs init starts for the shell and has not yet seen
 * exit. A foreground job is waited for; background jobs are reported
 * between prompts.
 */
#ifndef SPOOR_INIT_JOBS_H
#define SPOOR_INIT_JOBS_H

#include <stdbool.h>
#include <stdint.h>

struct job {
	int slot; /* process capability */
	uint32_t pid;
	bool background;
	char name[32];
};

/*
 * Makes prog a process with argv (argc strings), the console and the name
 * service at level (TRACED_LEVEL_*: what traced lets it do), as a tree
 * that may use mem_limit bytes (0: the kernel's default), stopped until
 * jobs_launch(). Returns 0 and fills *job, or -E* (printed by the caller).
 */
int jobs_start(const char *prog, int argc, char **argv, bool background, uint32_t level,
	       uint64_t mem_limit, struct job **job);

/*
 * Says the job's pid, "[pid 3] memtest" in the foreground and "[started]
 * memtest (pid 3)" in the background, then lets it run: the line comes
 * before anything the program prints.
 */
void jobs_launch(const struct job *job);

/* Waits for a foreground job, killing it on Ctrl-C; prints its status if not 0. */
void jobs_wait_foreground(struct job *job);

/* Prints and forgets background jobs that have exited. */
void jobs_reap(void);

/* Whether a background job has exited that jobs_reap() would report. */
bool jobs_reap_pending(void);

/*
 * Says why jobs_start() failed to start prog, as who (the command):
 * "run: no program 'x'" for every command that starts programs.
 */
void jobs_start_failed(const char *who, const char *prog, int err);

#endif
