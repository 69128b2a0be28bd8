/*
 * init: the root task. It owns the console and runs the shell; programs
 * it starts are its jobs (jobs.c), commands live in commands.c.
 */
#ifndef SPOOR_INIT_INIT_H
#define SPOOR_INIT_INIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/cap.h"

#define INIT_PROMPT "init> "
#define LINE_MAX    256
#define ARGS_MAX    16

/* Ctrl-C as the console delivers it. */
#define KEY_CTRL_C 0x03

/*
 * Reads one edited line into line (LINE_MAX bytes); false when Ctrl-C
 * cancelled it or it was longer than the buffer (said on the console).
 */
bool shell_read_line(char *line);

/* Runs one command line. */
void shell_run(char *line);

/* Jobs: programs init started and has not yet seen exit. */
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
 * Says how a process ended, from its wait status: "killed", "killed by a
 * fault (vector 14)" or "exited with status 3". Returns buf (size bytes).
 */
#define EXIT_WORDS_MAX 48
const char *exit_words(int64_t status, char *buf, size_t size);

/* "up 5.427 s": the one unit uptime is shown in. Returns buf. */
#define UPTIME_WORDS_MAX 32
const char *uptime_words(uint64_t ns, char *buf, size_t size);

/*
 * Says why jobs_start() failed to start prog, as who (the command):
 * "run: no program 'x'" for every command that starts programs.
 */
void jobs_start_failed(const char *who, const char *prog, int err);

/* The capabilities every program init starts gets: console, name service. */
#define CHILD_CONSOLE_RIGHTS (CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define CHILD_NAMING_RIGHTS  (CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)

/* The slot of init's name service endpoint (set up by services_init). */
extern int naming_slot;

/* A copy of the name service for a child at level (TRACED_LEVEL_*). */
int naming_for(uint32_t level);

/*
 * A call-only copy of the endpoint of the server called name, badged with
 * level (init's own requests: the shell's trace verbs are CONTROL), while
 * it runs: its slot, or -ENOENT.
 */
int services_client(const char *name, uint32_t level);

/*
 * Services: the server programs of the boot image, started by
 * services_init(), restarted when they exit, named through the name
 * service that the keeper thread answers.
 */
int services_init(void);

/*
 * Starts the server called name again, now: killing it first if it runs,
 * or one init gave up on or waits to restart; its crash count starts
 * over. 0 with its new pid in *pid, -ENOENT (no such server), or the
 * -E* of the kill, wait or spawn that failed.
 */
int services_restart(const char *name, uint32_t *pid);

/* Kills the server with that pid (init restarts it); -ENOENT if none. */
int services_kill(uint32_t pid);

/* Copies the name of the running server with that pid into name: 0, or -ENOENT if none. */
int services_name(uint32_t pid, char *name, size_t size);

/* The shell's `trace` verbs (trace_cmd.c), talking to traced. */
void cmd_trace(int argc, char **argv);

struct traced_filter;
struct traced_stats_request;

/* Prints the dump f selects (trace_cmd.c), page by page, until its end or a Ctrl-C. */
void trace_print_dump(const struct traced_filter *f);

/* Prints a STATS answer (trace_stats.c), page by page. */
void trace_print_stats(const struct traced_stats_request *r);

/* Before a dump: says how many events it will print, if more than a screenful (trace_long.c). */
void trace_dump_announce(const struct traced_filter *f);

/*
 * After `trace run`: the first lines of the program's events (f: its
 * tree), how to see the rest, and their stats (trace_long.c).
 */
void trace_run_report(const struct traced_filter *f);

/*
 * A follow's end by itself (trace_long.c): after a page of len bytes,
 * whether the process its filter f names (pid=, tree=) has exited and
 * its last events have come, said in one line. *ending (false at the
 * start) carries what it saw from one page to the next.
 */
bool trace_follow_ended(const struct traced_filter *f, size_t len, bool *ending);

/* The trace verbs' names, "on off ...", separated by sep, cut to size. */
void trace_verbs_format(char *buf, size_t size, const char *sep);

/* `help trace VERB`: prints VERB's legend and returns true, if it has one (stats, hist). */
bool trace_stats_help(const char *verb);

/* A lock for what the shell and the keeper thread share. */
struct init_lock {
	int held;
};

void init_lock(struct init_lock *l);
void init_unlock(struct init_lock *l);

#endif
