/*
 * linuxbench: the Linux half of `make bench-linux`, run by the initramfs's
 * /init (bench/linux-init) in Debian's kernel booted under QEMU's -icount
 * shift=0, where the TSC counts instructions, as Spoor's tracebench and
 * ipcping read it. The same figures as Spoor's, measured the same way:
 *   - a null system call (getpid, as ipcping's), made with the syscall
 *     instruction itself so that no libc wrapper is counted;
 *   - a round trip between two processes over a pair of pipes (one byte
 *     each way; the machine has one CPU, so both share it);
 *   - both again with raw_syscalls on (sys_enter and sys_exit recorded
 *     into the ftrace ring for every system call), with the events each
 *     recorded, counted from the ring's own statistics;
 *   - both again after raw_syscalls was turned off: a disabled
 *     tracepoint once enabled against one never enabled.
 * Each figure is the best batch of several, as in ipcping: a timer tick
 * or a stray interrupt only ever adds instructions to the batch it hits.
 * Prints one "linuxbench: FIGURE STATE VALUE" line per figure for
 * tools/bench-linux; judges nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACEFS	     "/sys/kernel/tracing"
#define BATCHES	     20
#define NULL_ROUNDS  1000 /* per batch */
#define PIPE_ROUNDS  100  /* per batch */
#define COUNT_ROUNDS 1000 /* the untimed run that counts events */

struct pipes {
	int to_child;
	int from_child;
	pid_t child;
};

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void die(const char *what)
{
	printf("linuxbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long null_syscall(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(SYS_getpid) : "rcx", "r11", "memory");
	return ret;
}

static void pipe_round_trip(const struct pipes *p)
{
	char byte = 'p';

	if (write(p->to_child, &byte, 1) != 1 || read(p->from_child, &byte, 1) != 1) {
		die("pipe round trip");
	}
}

/* The other end: echoes each byte until its pipe closes. */
static void echo_loop(int in, int out)
{
	char byte;

	while (read(in, &byte, 1) == 1) {
		if (write(out, &byte, 1) != 1) {
			_exit(1);
		}
	}
	_exit(0);
}

static void pipes_start(struct pipes *p)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up)) {
		die("pipe");
	}
	p->child = fork();
	if (p->child < 0) {
		die("fork");
	}
	if (p->child == 0) {
		close(down[1]);
		close(up[0]);
		echo_loop(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	p->to_child = down[1];
	p->from_child = up[0];
}

static void pipes_stop(struct pipes *p)
{
	close(p->to_child);
	close(p->from_child);
	waitpid(p->child, NULL, 0);
}

/* Instructions per round of the best batch; one untimed batch first, so
 * that QEMU has translated the code before any batch is timed. */
static uint64_t best_null(void)
{
	uint64_t best = UINT64_MAX;

	for (int b = 0; b <= BATCHES; b++) {
		uint64_t start = rdtsc();

		for (int i = 0; i < NULL_ROUNDS; i++) {
			null_syscall();
		}
		uint64_t each = (rdtsc() - start) / NULL_ROUNDS;

		best = b > 0 && each < best ? each : best;
	}
	return best;
}

static uint64_t best_pipe(const struct pipes *p)
{
	uint64_t best = UINT64_MAX;

	for (int b = 0; b <= BATCHES; b++) {
		uint64_t start = rdtsc();

		for (int i = 0; i < PIPE_ROUNDS; i++) {
			pipe_round_trip(p);
		}
		uint64_t each = (rdtsc() - start) / PIPE_ROUNDS;

		best = b > 0 && each < best ? each : best;
	}
	return best;
}

static void tracefs_write(const char *file, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value)) {
		die(path);
	}
	close(fd);
}

/* Events CPU 0's ring has taken so far: those it holds and those it
 * overwrote (the ring's default mode), from per_cpu/cpu0/stats. */
static uint64_t ring_events(int stats)
{
	char text[512];
	ssize_t n = pread(stats, text, sizeof(text) - 1, 0);

	if (n <= 0) {
		die("stats");
	}
	text[n] = '\0';
	const char *entries = strstr(text, "entries: ");
	const char *overrun = strstr(text, "overrun: ");

	if (!entries || !overrun) {
		printf("linuxbench: stats without entries or overrun\n");
		exit(1);
	}
	return strtoull(entries + 9, NULL, 10) + strtoull(overrun + 9, NULL, 10);
}

/* Events one null system call and one pipe round trip record, counted over
 * COUNT_ROUNDS of each. Between the two readings of the statistics the
 * ring also takes the first reading's sys_exit and the second's sys_enter,
 * which the count leaves out. */
static void count_events(const struct pipes *p, int stats)
{
	uint64_t before = ring_events(stats);

	for (int i = 0; i < COUNT_ROUNDS; i++) {
		null_syscall();
	}
	uint64_t middle = ring_events(stats);

	for (int i = 0; i < COUNT_ROUNDS; i++) {
		pipe_round_trip(p);
	}
	uint64_t after = ring_events(stats);

	printf("linuxbench: null events %.2f\n", (double)(middle - before - 2) / COUNT_ROUNDS);
	printf("linuxbench: pipe events %.2f\n", (double)(after - middle - 2) / COUNT_ROUNDS);
}

static void measure(const char *state, const struct pipes *p)
{
	printf("linuxbench: null %s %llu\n", state, (unsigned long long)best_null());
	printf("linuxbench: pipe %s %llu\n", state, (unsigned long long)best_pipe(p));
}

int main(void)
{
	struct utsname uts;
	struct pipes p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uname(&uts)) {
		die("uname");
	}
	printf("linuxbench: kernel %s\n", uts.release);
	int stats = open(TRACEFS "/per_cpu/cpu0/stats", O_RDONLY);

	if (stats < 0) {
		die(TRACEFS "/per_cpu/cpu0/stats");
	}
	pipes_start(&p);
	measure("never-enabled", &p);
	tracefs_write("trace", "");
	tracefs_write("events/raw_syscalls/enable", "1");
	measure("raw_syscalls", &p);
	count_events(&p, stats);
	tracefs_write("events/raw_syscalls/enable", "0");
	measure("disabled-again", &p);
	pipes_stop(&p);
	close(stats);
	printf("linuxbench: done\n");
	return 0;
}
