/*
 * commands: the shell's commands, one function each, found through one
 * table; `trace` and its verbs live in trace/ (trace/verbs.c's table).
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/traced.h"
#include "servers/init/jobs.h"
#include "servers/init/services.h"
#include "servers/init/shell/commands.h"
#include "servers/init/shell/trace/stats.h"
#include "servers/init/shell/trace/verbs.h"
#include "servers/init/words.h"

#define THREADS_MAX	256 /* as many as the kernel lists at once */
#define KIB_PER_PAGE	4
#define RUN_USAGE	"run [-t|-r] [-m SIZE] PROG [ARGS] [&]"
#define RESTART_USAGE	"restart SERVER"
#define KILL_USAGE	"kill [-f] PID"
#define TRACE_VERBS_MAX 256
#define ARGS_MAX	16

struct command {
	const char *name;
	const char *usage;
	void (*run)(int argc, char **argv);
};

static void cmd_help(int argc, char **argv);

static const char *const state_names[THREAD_STATE_LIMIT] = {
#define STATE_NAME(value, NAME, name) [value] = #name,
    THREAD_STATES(STATE_NAME)
#undef STATE_NAME
};

static void cmd_ps(int argc, char **argv)
{
	static struct thread_info threads[THREADS_MAX];

	(void)argc;
	(void)argv;
	long n = sys_thread_list(threads, THREADS_MAX);
	if (n < 0) {
		printf("ps: %s\n", strerror((int)-n));
		return;
	}
	printf("  PID  PPID   TID NAME             STATE     CPU      MEM\n");
	for (long i = 0; i < n; i++) {
		const struct thread_info *t = &threads[i];
		printf("%5u %5u %5u %-16s %-9s %3u %7lluK\n", t->pid, t->ppid, t->tid, t->name,
		       t->state < THREAD_STATE_LIMIT ? state_names[t->state] : "?", t->cpu,
		       (unsigned long long)t->mem_pages * KIB_PER_PAGE);
	}
}

static void cmd_cpus(int argc, char **argv)
{
	struct sys_info info;
	char up[UPTIME_WORDS_MAX];

	(void)argc;
	(void)argv;
	sys_sys_info(&info);
	printf("%u cpus, %u processes, %s\n", info.ncpus, info.nprocs,
	       uptime_words(info.uptime_ns, up, sizeof(up)));
	for (uint32_t i = 0; i < info.ncpus && i < SYS_INFO_CPUS; i++) {
		uint64_t busy_pct = info.uptime_ns ? info.cpu_busy_ns[i] * 100 / info.uptime_ns : 0;
		uint32_t stuck_ms = info.cpu_stuck_ms[i], late = info.cpu_late_nmis[i];

		/* A stuck CPU's busy share means nothing: it may be stuck in the idle thread. */
		if (stuck_ms) {
			printf(
			    "cpu %u: stuck for %u.%03u s, interrupts %s, running tid %u, %u ready",
			    i, stuck_ms / 1000, stuck_ms % 1000,
			    info.cpu_flags[i] & SYS_CPU_IRQS_MASKED ? "masked" : "on",
			    info.cpu_running_tid[i], info.cpu_ready[i]);
		} else {
			printf("cpu %u: busy %3llu%%, running tid %u, %u ready", i,
			       (unsigned long long)busy_pct, info.cpu_running_tid[i],
			       info.cpu_ready[i]);
		}
		if (late) {
			printf(", %u late lockup NMI%s ignored", late, late == 1 ? "" : "s");
		}
		printf("\n");
	}
}

/* Prints a size in KiB, or "-" for none. */
static void print_kib(uint64_t bytes)
{
	if (bytes == UINT64_MAX) {
		printf(" %10s", "-");
	} else {
		printf(" %9lluK", (unsigned long long)(bytes / 1024));
	}
}

/* One line per tree: what is charged to it and its limit (abi/proc.h MEMORY). */
static void print_trees(const struct thread_info *threads, long n)
{
	printf(" TREE NAME                   USED      LIMIT\n");
	for (long i = 0; i < n; i++) {
		const struct thread_info *t = &threads[i];
		bool first = true;
		for (long j = 0; j < i && first; j++) {
			first = threads[j].tree_pid != t->tree_pid;
		}
		if (!first) {
			continue;
		}
		const char *name = "?"; /* its root has ended, the rest of it not yet */
		for (long j = 0; j < n; j++) {
			if (threads[j].pid == t->tree_pid) {
				name = threads[j].name;
			}
		}
		printf("%5u %-16s", t->tree_pid, name);
		print_kib(t->tree_mem);
		print_kib(t->tree_mem_limit);
		printf("\n");
	}
}

static void cmd_mem(int argc, char **argv)
{
	static struct thread_info threads[THREADS_MAX];
	struct sys_info info;

	(void)argc;
	(void)argv;
	sys_sys_info(&info);
	printf("memory: %llu of %llu frames free (%llu KiB of %llu KiB), %llu kept for init "
	       "and its servers\n",
	       (unsigned long long)info.frames_free, (unsigned long long)info.frames_total,
	       (unsigned long long)info.frames_free * KIB_PER_PAGE,
	       (unsigned long long)info.frames_total * KIB_PER_PAGE,
	       (unsigned long long)info.frames_reserved);
	long n = sys_thread_list(threads, THREADS_MAX);
	if (n < 0) {
		printf("mem: %s\n", strerror((int)-n));
		return;
	}
	print_trees(threads, n);
}

/*
 * A size for run -m: digits and K, M or G (KiB, MiB, GiB). 0 and the
 * bytes in *out, or -1 having said what is wrong.
 */
static int parse_size(const char *word, uint64_t *out)
{
	char *end;
	unsigned long long n = strtoull(word, &end, 10);
	int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;

	if (end == word || shift < 0 || end[1] || !n || n > (UINT64_MAX >> shift)) {
		printf("run: '%s' is not a size (e.g. 512K, 64M, 1G)\n", word);
		return -1;
	}
	*out = (uint64_t)n << shift;
	return 0;
}

/*
 * Whether a tree may be given a limit of bytes: no more than the machine
 * has, which no tree could ever reach (so the limit would not be one);
 * if not, says so.
 */
static bool fits_memory(uint64_t bytes)
{
	struct sys_info info;
	uint64_t total_kib;

	sys_sys_info(&info);
	total_kib = info.frames_total * KIB_PER_PAGE;
	if (bytes / 1024 > total_kib) {
		printf("run: -m %lluK is more than this machine's memory (%lluK)\n",
		       (unsigned long long)(bytes / 1024), (unsigned long long)total_kib);
		return false;
	}
	return true;
}

/* run's flags: the level traced gives the program (abi/traced.h, WHO CALLS). */
static const struct {
	const char *flag;
	uint32_t level;
} run_levels[] = {
    {"-t", TRACED_LEVEL_CONTROL},
    {"-r", TRACED_LEVEL_READ},
};

static void cmd_run(int argc, char **argv)
{
	bool background = false;
	uint32_t level = TRACED_LEVEL_SELF;
	uint64_t mem_limit = 0;
	struct job *job;

	if (argc > 1 && !strcmp(argv[argc - 1], "&")) {
		background = true;
		argc--;
	}
	/* Options in any order, each once or more (the last one counts). */
	while (argc > 1) {
		size_t i = 0;
		while (i < sizeof(run_levels) / sizeof(run_levels[0]) &&
		       strcmp(argv[1], run_levels[i].flag)) {
			i++;
		}
		if (i < sizeof(run_levels) / sizeof(run_levels[0])) {
			level = run_levels[i].level;
			argc--;
			argv++;
		} else if (argc > 2 && !strcmp(argv[1], "-m")) {
			if (parse_size(argv[2], &mem_limit)) {
				return;
			}
			argc -= 2;
			argv += 2;
		} else {
			break;
		}
	}
	if (argc < 2) {
		printf("run: usage: %s\n", RUN_USAGE);
		return;
	}
	if (argv[1][0] == '-') {
		printf("run: unknown option '%s' (usage: %s)\n", argv[1], RUN_USAGE);
		return;
	}
	if (mem_limit && !fits_memory(mem_limit)) {
		return;
	}
	int err = jobs_start(argv[1], argc - 1, argv + 1, background, level, mem_limit, &job);
	if (err) {
		jobs_start_failed("run", argv[1], err);
		return;
	}
	jobs_launch(job);
	if (!background) {
		jobs_wait_foreground(job);
	}
}

/*
 * kill [-f] PID: any process but init itself, through the kernel's
 * kill_pid (init is every process's ancestor). A server init keeps only
 * with -f, through init's own capability to it: init restarts it.
 */
static void cmd_kill(int argc, char **argv)
{
	bool force = argc == 3 && !strcmp(argv[1], "-f");
	char server[PROC_NAME_MAX];
	char *end;

	if (argc != 2 && !force) {
		printf("kill: usage: %s\n", KILL_USAGE);
		return;
	}
	const char *word = argv[argc - 1];
	unsigned long pid = strtoul(word, &end, 10);
	if (*end || end == word || pid > UINT32_MAX) {
		printf("kill: '%s' is not a pid\n", word);
		return;
	}
	bool is_server = !services_name((uint32_t)pid, server, sizeof(server));
	int err;
	if (pid == (unsigned long)sys_getpid()) {
		printf("kill: pid %lu is init, which runs this shell; it cannot be killed\n", pid);
		return;
	}
	if (is_server && !force) {
		printf("kill: pid %lu is %s, a server init keeps running (kill -f %lu: init "
		       "restarts it)\n",
		       pid, server, pid);
		return;
	}
	err = is_server ? services_kill((uint32_t)pid) : (int)sys_kill_pid((uint32_t)pid);
	if (err == -ENOENT) {
		printf("kill: no process with pid %lu\n", pid);
	} else if (err) {
		printf("kill: pid %lu: %s\n", pid, strerror(-err));
	} else {
		printf("kill: pid %lu killed\n", pid);
	}
}

/* restart SERVER: a server init keeps, started again now (services_restart()). */
static void cmd_restart(int argc, char **argv)
{
	uint32_t pid;

	if (argc != 2) {
		printf("restart: usage: %s\n", RESTART_USAGE);
		return;
	}
	int err = services_restart(argv[1], &pid);
	if (err == -ENOENT) {
		printf("restart: no server '%s'\n", argv[1]);
	} else if (err) {
		printf("restart: %s: %s\n", argv[1], strerror(-err));
	} else {
		printf("restart: %s started (pid %u)\n", argv[1], pid);
	}
}

static void cmd_halt(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("powering off\n");
	fflush(stdout);
	long err = sys_poweroff(CAP_SLOT_CONSOLE);
	printf("halt: %s\n", strerror((int)-err));
}

static const struct command commands[] = {
    {"help", "list the commands", cmd_help},
    {"ps",
     "threads: pid, parent's pid, tid, name, state, cpu, memory (MEM: the user pages its "
     "process maps, pages shared with other processes counted in each)",
     cmd_ps},
    {"cpus", "the CPUs and what they run", cmd_cpus},
    {"mem",
     "free physical memory, and what each tree uses of its limit (USED: every frame and "
     "kernel object charged to the tree: its own pages, page tables, kernel stacks; not the "
     "sum of its processes' MEM)",
     cmd_mem},
    {"run",
     RUN_USAGE ": start a program (& in the background; traced lets it control "
	       "tracing with -t, read all of it with -r, else its own events; -m: the most "
	       "memory it and what it spawns may use, else half of it)",
     cmd_run},
    {"kill",
     KILL_USAGE ": end a process and what it spawned (not init; a server only with -f, and "
		"init restarts it)",
     cmd_kill},
    {"restart", RESTART_USAGE ": start a server init keeps again (one it gave up on too)",
     cmd_restart},
    {"trace", NULL, verbs_run}, /* the usage comes from trace/verbs.c's list of verbs */
    {"halt", "power the machine off", cmd_halt},
};

#define NUM_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(int argc, char **argv)
{
	char verbs[TRACE_VERBS_MAX];

	if (argc == 3 && !strcmp(argv[1], "trace") && stats_help(argv[2])) {
		return;
	}
	verbs_format(verbs, sizeof(verbs), "|");
	for (size_t i = 0; i < NUM_COMMANDS; i++) {
		if (commands[i].usage) {
			printf("  %-7s %s\n", commands[i].name, commands[i].usage);
		} else {
			printf("  %-7s trace %s: see `trace`\n", commands[i].name, verbs);
		}
	}
}

/*
 * Splits line in place into words at spaces and tabs; a word may be
 * quoted with ' or " to hold spaces and semicolons (trace register 'ev
 * u32 a;char[8] s'). Returns the word count, or -1 having said why.
 */
static int split(char *line, char **argv)
{
	int argc = 0;
	char *in = line;

	for (;;) {
		while (*in == ' ' || *in == '\t') {
			in++;
		}
		if (!*in) {
			return argc;
		}
		if (argc == ARGS_MAX) {
			printf("too many words (at most %d)\n", ARGS_MAX);
			return -1;
		}
		char *out = in;
		argv[argc++] = out;
		while (*in && *in != ' ' && *in != '\t') {
			if (*in == '\'' || *in == '"') {
				char *close = strchr(in + 1, *in);
				if (!close) {
					printf("unterminated %c quote\n", *in);
					return -1;
				}
				size_t n = (size_t)(close - in - 1);
				memmove(out, in + 1, n);
				out += n;
				in = close + 1;
			} else {
				*out++ = *in++;
			}
		}
		if (*in) {
			in++;
		}
		*out = '\0';
	}
}

void shell_run(char *line)
{
	char *argv[ARGS_MAX + 1];
	int argc = split(line, argv);

	if (argc <= 0) {
		return;
	}
	argv[argc] = NULL;
	for (size_t i = 0; i < NUM_COMMANDS; i++) {
		if (!strcmp(argv[0], commands[i].name)) {
			commands[i].run(argc, argv);
			return;
		}
	}
	printf("unknown command '%s' (try help)\n", argv[0]);
}
