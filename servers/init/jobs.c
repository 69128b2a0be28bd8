/*
 * jobs: the programs init started. A foreground job is waited for with
 * short timeouts so that a Ctrl-C typed meanwhile can kill it; background
 * jobs are polled between prompts.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "console.h"
#include "jobs.h"
#include "services.h"
#include "words.h"

#define MAX_JOBS 32
#define POLL_NS	 20000000ull

static struct job jobs[MAX_JOBS];

int jobs_start(const char *prog, int argc, char **argv, bool background, uint32_t level,
	       uint64_t mem_limit, struct job **out)
{
	char args[SPAWN_ARGS_MAX];
	size_t len = 0;
	struct job *job = NULL;

	for (int i = 0; i < MAX_JOBS && !job; i++) {
		if (!jobs[i].slot) {
			job = &jobs[i];
		}
	}
	if (!job) {
		return -ENOSPC;
	}
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;
		if (len + n > sizeof(args)) {
			return -E2BIG;
		}
		memcpy(args + len, argv[i], n);
		len += n;
	}
	struct spawn_cap caps[] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CHILD_CONSOLE_RIGHTS},
	    {.src = (uint32_t)naming_for(level),
	     .dst = CAP_SLOT_NAMESERVER,
	     .rights = CHILD_NAMING_RIGHTS},
	};
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t)prog,
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len,
	    .ncaps = sizeof(caps) / sizeof(caps[0]),
	    .caps = (uint64_t)(uintptr_t)caps,
	    .mem_limit = mem_limit,
	    .flags = SPAWN_STOPPED, /* jobs_launch() starts it, once its pid is said */
	};
	long slot = sys_spawn(&sa);
	if (slot < 0) {
		return (int)slot;
	}
	struct cap_info info;
	sys_cap_identify((int)slot, &info);
	job->slot = (int)slot;
	job->pid = (uint32_t)info.size;
	job->background = background;
	snprintf(job->name, sizeof(job->name), "%s", prog);
	*out = job;
	return 0;
}

static void report(const struct job *job, int64_t status)
{
	char words[EXIT_WORDS_MAX];

	if (status || job->background) {
		printf("%s%s (pid %u): %s\n", job->background ? "[done] " : "", job->name, job->pid,
		       exit_words(status, words, sizeof(words)));
	}
}

void jobs_launch(const struct job *job)
{
	if (job->background) {
		printf("[started] %s (pid %u)\n", job->name, job->pid);
	} else {
		printf("[pid %u] %s\n", job->pid, job->name);
	}
	fflush(stdout); /* all written before the program's first instruction */
	/*
	 * It fails only if the job was killed meanwhile (its tree out of
	 * memory): its wait says so, as for any other end.
	 */
	sys_process_start(job->slot);
}

void jobs_start_failed(const char *who, const char *prog, int err)
{
	if (err == -ENOENT) {
		printf("%s: no program '%s'\n", who, prog);
	} else {
		printf("%s: cannot start '%s': %s\n", who, prog, strerror(-err));
	}
}

static void forget(struct job *job)
{
	sys_cap_delete(job->slot);
	memset(job, 0, sizeof(*job));
}

void jobs_wait_foreground(struct job *job)
{
	int64_t status;

	for (;;) {
		long err = sys_wait(job->slot, &status, POLL_NS);
		if (!err) {
			break;
		}
		char c;
		if (sys_console_read(CAP_SLOT_CONSOLE, &c, 1, 0) == 1 && c == KEY_CTRL_C) {
			printf("^C\n");
			sys_kill(job->slot);
		}
	}
	report(job, status);
	forget(job);
}

/* Whether job is a background job that has exited, with its status in *status. */
static bool background_done(const struct job *job, int64_t *status)
{
	return job->slot && job->background && !sys_wait(job->slot, status, 0);
}

bool jobs_reap_pending(void)
{
	int64_t status;

	for (int i = 0; i < MAX_JOBS; i++) {
		if (background_done(&jobs[i], &status)) {
			return true;
		}
	}
	return false;
}

void jobs_reap(void)
{
	int64_t status;

	for (int i = 0; i < MAX_JOBS; i++) {
		if (background_done(&jobs[i], &status)) {
			report(&jobs[i], status);
			forget(&jobs[i]);
		}
	}
}
