/*
 * spoor-postmortem: the trace of a stopped, hung or panicked machine,
 * read from its memory (dump.h, extract.h), as a saved trace file
 * (abi/trace_file.h) that spoor-trace converts like any `trace save`.
 *
 *   spoor-postmortem [-f] [-k] [-e KERNEL] [-o OUT] RUN-FOLDER
 *       a machine tools/run-qemu runs with RUN-FOLDER (make run's is
 *       build/traces): its memory is dumped through the folder's QMP
 *       socket (.monitor) into RUN-FOLDER/.memory.core (kept with -k),
 *       then read. The machine is left as it was.
 *   spoor-postmortem [-f] [-e KERNEL] [-o OUT] DUMP
 *       a guest memory dump (dump-guest-memory's ELF core) given by path.
 *
 * The area is the one the kernel recorded (ksym.h): KERNEL is the
 * kernel.elf that ran, by default RUN-FOLDER/.kernel.elf (tools/run-qemu
 * links it there). With no KERNEL for a DUMP, the one page that passes
 * as a trace area is taken, and a dump with more (one a program forged
 * in its memory) is refused.
 *
 * OUT is by default RUN-FOLDER/postmortem.spoor, or DUMP's path with
 * .spoor appended; a default name that is taken gets -2, -3, ... before
 * the suffix. An OUT given with -o that exists is left alone unless -f.
 * Prints one line saying what it wrote.
 *
 * Exit status: 0 on success; 2 for wrong arguments, a machine that does
 * not answer or a dump without a usable trace area (one line saying why);
 * 1 when the output cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/trace_file.h"
#include "tools/spoor-postmortem/dump.h"
#include "tools/spoor-postmortem/extract.h"
#include "tools/spoor-postmortem/ksym.h"
#include "tools/spoor-postmortem/monitor.h"

#define EXIT_BAD_INPUT 2
#define EXIT_OUTPUT    1
#define WHY_MAX	       512

static const char prog[] = "spoor-postmortem";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-f] [-k] [-e KERNEL] [-o OUT.spoor] RUN-FOLDER   dump a running "
		"machine's memory\n"
		"       %s [-f] [-e KERNEL] [-o OUT.spoor] DUMP              read a "
		"dump-guest-memory core\n"
		"  -f  replace OUT if it exists   -k  keep RUN-FOLDER/.memory.core\n"
		"  -e  the kernel.elf that ran (default RUN-FOLDER/.kernel.elf)\n",
		prog, prog);
}

/* A free name: base + suffix, else base-2 + suffix, ... */
static int free_name(char *out, size_t size, const char *base)
{
	for (unsigned n = 1; n < 1000; n++) {
		if (n == 1) {
			snprintf(out, size, "%s%s", base, TTRACE_FILE_SUFFIX);
		} else {
			snprintf(out, size, "%s-%u%s", base, n, TTRACE_FILE_SUFFIX);
		}
		if (access(out, F_OK)) {
			return 0;
		}
	}
	return -1;
}

/* Writes the file through a temporary name, so OUT is never a partial file. */
static int write_out(const char *path, const uint8_t *bytes, size_t len, bool replace)
{
	char tmp[PATH_MAX + 16];

	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	FILE *f = fopen(tmp, "wbx");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, tmp, strerror(errno));
		return -1;
	}
	bool ok = fwrite(bytes, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (ok && !replace && !access(path, F_OK)) {
		unlink(tmp);
		fprintf(stderr, "%s: %s exists (-f replaces it)\n", prog, path);
		return -1;
	}
	if (!ok || rename(tmp, path)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Maps the dump, finds the area the kernel at kernel (NULL: none known)
 * recorded, writes out. Returns the exit status.
 */
static int convert(const char *dump_path, const char *kernel, const char *out, bool replace)
{
	char why[WHY_MAX];
	uint64_t record;

	if (kernel && ksym_phys(kernel, TTRACE_AREA_SYMBOL, &record, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return EXIT_BAD_INPUT;
	}
	int fd = open(dump_path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, dump_path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size) {
		fprintf(stderr, "%s: %s: not a dump (empty, or not a file)\n", prog, dump_path);
		close(fd);
		return EXIT_BAD_INPUT;
	}
	const uint8_t *bytes = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (bytes == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map %s: %s\n", prog, dump_path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	struct dump d;
	struct ttrace_area a;
	uint8_t *copy = NULL;
	struct dump_area where = {0};
	struct extract_result res = {0};
	int status = EXIT_BAD_INPUT;
	if (dump_parse(&d, bytes, (size_t)st.st_size, why, sizeof(why)) ||
	    dump_find_area(&d, kernel ? &record : NULL, &a, &copy, &where, why, sizeof(why)) ||
	    extract_file(&a, &res, why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", prog, dump_path, why);
		goto out;
	}
	status = EXIT_OUTPUT;
	if (write_out(out, res.bytes, res.len, replace)) {
		goto out;
	}
	printf("%s: %llu events, %llu entries lost", out, (unsigned long long)res.events,
	       (unsigned long long)res.lost);
	if (res.stuck) {
		printf(" (%u of them in slots left half written)", res.stuck);
	}
	printf(", from the trace area at 0x%llx", (unsigned long long)where.phys);
	if (where.others) {
		printf("; %u other %s, not taken (the kernel's record names this one)",
		       where.others,
		       where.others == 1 ? "page passes as a trace area"
					 : "pages pass as trace areas");
	}
	if (res.partial) {
		printf("; partial: a clear was stopped half-way, the ledger may be off by it");
	}
	if (res.corrupt || res.aux_cut) {
		printf("; partial: the dump is corrupt (%llu entries of impossible events counted "
		       "lost, %llu aux bytes left out)",
		       (unsigned long long)res.corrupt, (unsigned long long)res.aux_cut);
	}
	printf("%s\n", d.truncated ? "; the dump is truncated" : "");
	status = 0;
out:
	free(res.bytes);
	free(copy);
	munmap((void *)bytes, (size_t)st.st_size);
	return status;
}

int main(int argc, char **argv)
{
	bool replace = false, keep = false;
	const char *out = NULL, *kernel = NULL;
	char path[PATH_MAX], out_buf[PATH_MAX + 32], dump_path[PATH_MAX + 32], why[WHY_MAX];
	int opt;

	while ((opt = getopt(argc, argv, "fke:o:h")) != -1) {
		switch (opt) {
		case 'f':
			replace = true;
			break;
		case 'k':
			keep = true;
			break;
		case 'e':
			kernel = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return EXIT_BAD_INPUT;
		}
	}
	if (optind != argc - 1) {
		usage();
		return EXIT_BAD_INPUT;
	}
	struct stat st;
	if (stat(argv[optind], &st) || !realpath(argv[optind], path)) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], strerror(errno));
		return EXIT_BAD_INPUT;
	}
	bool machine = S_ISDIR(st.st_mode);
	if (!out) {
		char base[PATH_MAX + 16];
		snprintf(base, sizeof(base), machine ? "%s/postmortem" : "%s", path);
		if (free_name(out_buf, sizeof(out_buf), base)) {
			fprintf(stderr, "%s: no free name for %s%s\n", prog, base,
				TTRACE_FILE_SUFFIX);
			return EXIT_OUTPUT;
		}
		out = out_buf;
	}
	if (!machine) {
		return convert(path, kernel, out, replace);
	}
	char sock[PATH_MAX + 16], kernel_buf[PATH_MAX + 16];
	if (!kernel) {
		snprintf(kernel_buf, sizeof(kernel_buf), "%s/.kernel.elf", path);
		kernel = kernel_buf;
	}
	snprintf(sock, sizeof(sock), "%s/.monitor", path);
	snprintf(dump_path, sizeof(dump_path), "%s/.memory.core", path);
	if (monitor_dump(sock, dump_path, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return EXIT_BAD_INPUT;
	}
	int status = convert(dump_path, kernel, out, replace);
	if (keep) {
		fprintf(stderr, "%s: the memory dump is kept in %s\n", prog, dump_path);
	} else {
		unlink(dump_path);
	}
	return status;
}
