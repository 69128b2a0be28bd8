/*
 * spoor-receive [--max-files N] [--max-bytes N] DIR PID: the host end of
 * Spoor's export channel (abi/trace_file.h, THE EXPORT CHANNEL).
 * tools/run-qemu starts it beside QEMU, whose process is PID: it reads the
 * guest's lines from the FIFO DIR/.export.out (QEMU's COM2 output), takes
 * the records the guest publishes in the export window's ring (the file
 * DIR/.export.window, QEMU's ivshmem memory, read in place by window.c)
 * into DIR/NAME.spoor.part, and answers each line on DIR/.export.in. A file whose length and
 * checksum match is renamed to DIR/NAME.spoor, so a file under its name is always whole; it
 * replaces a file of that name only when its begin line said "replace" (traced says so for
 * CONTROL's saves alone), and otherwise the rename itself refuses (RENAME_NOREPLACE), so no check
 * can go stale. It ends when PID does.
 *
 * Only files this run made may be replaced, and only its recordings
 * resumed: the folder may hold the user's files and earlier runs', which
 * a guest must neither truncate nor append to, nor learn the size of. A
 * file made is known by its name and inode (struct made), so one put in
 * its place meanwhile is not taken for it.
 *
 * The run's limits: at most --max-files files kept and --max-bytes bytes
 * received into kept and current files (SAVE_FILES_MAX, SAVE_BYTES_MAX by
 * default), so a guest cannot fill the host's disk. Past one, the request
 * is refused with "error limit: ...", which traced prints on the guest's
 * console.
 *
 * A recording ("record NAME") is written straight to DIR/NAME.spoor, a
 * chunk each record, so the file grows while the run goes on and
 * reads, at every moment between two lines, as the recording so far
 * (abi/trace_file.h, A RECORDING). Dropped (QEMU gone, a refusal, a new
 * file begun) it stays as it is: cut after its last whole chunk.
 *
 * While a file is in progress it looks at the ring every TAKE_MS, and
 * before it answers any line (abi/trace_file.h). A window that fails a
 * check drops the file in progress with one line on stderr, and the guest
 * learns it from the window's refused word, or at its end line.
 *
 * It says nothing while all goes well (the guest reports each save); it
 * prints one line on stderr per refused request, and exits 2 for bad
 * arguments, a channel it cannot open or a QEMU it cannot watch.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/trace_file.h"
#include "common/fnv.h"
#include "tools/spoor-receive/seal.h"
#include "tools/spoor-receive/window.h"

#define POLL_MS 200 /* how often to look whether QEMU still runs */
#define TAKE_MS 1   /* how often to look at the ring while a file is in progress */

#define SAVE_FILES_MAX 1000			   /* files one run may keep */
#define SAVE_BYTES_MAX (4ull * 1024 * 1024 * 1024) /* bytes one run may write */

#define EXISTS		"exists: a file of that name is there already"
#define EXISTS_NOT_OURS EXISTS ", not made by this run"
#define NOT_OURS	"not a recording of this run"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0) /* linux/fs.h; older C libraries lack the name */
#endif

/* A file this run made, under its name: a save renamed into place, or a recording. */
struct made {
	char name[TTRACE_EXPORT_NAME_MAX];
	dev_t dev;
	ino_t ino;
	bool recording;
};

struct receiver {
	const char *dir;
	int in, out; /* the guest's lines, our answers */
	int file;    /* the .part file, or -1 */
	char name[TTRACE_EXPORT_NAME_MAX];
	bool replace;	   /* the begin line allowed replacing NAME.spoor */
	bool recording;	   /* the file is NAME.spoor itself, growing */
	uint64_t bytes;	   /* received into the file (a resumed recording's: since the resume) */
	uint64_t base;	   /* a resumed recording's size when it resumed */
	uint64_t checksum; /* a save's: of the bytes received, for its end line */
	struct seal seal;  /* a recording's: it computes its checksums (seal.h) */
	uint8_t *copy;	   /* a recording's record, copied out of the window to be sealed */
	size_t copy_size;
	/* The run's totals and limits. */
	uint64_t files_kept, bytes_kept; /* files renamed into place, and their bytes */
	uint64_t max_files, max_bytes;
	struct made *made; /* the files this run made, files_kept at most */
	size_t nmade;
	struct window win;			  /* the export window's ring, mapped */
	char broken[TTRACE_EXPORT_LINE_MAX - 16]; /* why the last file was dropped, or "" */
};

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("spoor-receive: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void path(char *buf, size_t size, const struct receiver *r, const char *name,
		 const char *suffix)
{
	snprintf(buf, size, "%s/%s%s", r->dir, name, suffix);
}

static bool name_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len < TTRACE_EXPORT_NAME_MAX && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		   len;
}

/* The file this run made under name, or NULL. */
static struct made *made_find(const struct receiver *r, const char *name)
{
	for (size_t i = 0; i < r->nmade; i++) {
		if (!strcmp(r->made[i].name, name)) {
			return &r->made[i];
		}
	}
	return NULL;
}

/* Whether st is the file this run made under name (a recording, if recording). */
static bool ours(const struct receiver *r, const char *name, const struct stat *st, bool recording)
{
	const struct made *m = made_find(r, name);

	return m && m->dev == st->st_dev && m->ino == st->st_ino && (m->recording || !recording);
}

/* Notes that this run made st under name; false when out of memory. */
static bool made_add(struct receiver *r, const char *name, const struct stat *st, bool recording)
{
	struct made *m = made_find(r, name);

	if (!m) {
		m = realloc(r->made, (r->nmade + 1) * sizeof(*m));
		if (!m) {
			return false;
		}
		r->made = m;
		m = &r->made[r->nmade++];
		snprintf(m->name, sizeof(m->name), "%s", name);
	}
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->recording = recording;
	return true;
}

/*
 * Whether NAME.spoor at p may be replaced: it is not there, or this run
 * made it. A file a symbolic link names is never this run's.
 */
static bool replaceable(const struct receiver *r, const char *name, const char *p)
{
	struct stat st;

	return lstat(p, &st) ? errno == ENOENT : ours(r, name, &st, false);
}

/* Drops the file in progress, if any: a save's part goes, a recording stays as it is. */
static void drop(struct receiver *r)
{
	char p[4096];

	if (r->file >= 0) {
		close(r->file);
		r->file = -1;
		if (r->recording) {
			r->bytes_kept += r->bytes;
		} else {
			path(p, sizeof(p), r, r->name, TTRACE_FILE_SUFFIX ".part");
			unlink(p);
		}
	}
}

/*
 * Opens NAME.spoor at p for a recording: a new file (O_EXCL is the
 * never-replace check, as the file is the one a reader opens), or with
 * replace one this run made, checked on the open file before it is
 * emptied.
 */
static const char *open_recording(struct receiver *r, const char *p, const char *name, bool replace)
{
	struct stat st;

	r->file = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (r->file < 0 && errno == EEXIST && replace) {
		/* O_NONBLOCK: a FIFO put there meanwhile fails at once instead of waiting. */
		r->file = open(p, O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
		if (r->file >= 0 && (fstat(r->file, &st) || !ours(r, name, &st, false))) {
			close(r->file);
			r->file = -1;
			return EXISTS_NOT_OURS;
		}
		if (r->file >= 0 && ftruncate(r->file, 0)) {
			close(r->file);
			r->file = -1;
		}
	}
	if (r->file < 0) {
		return errno == EEXIST ? EXISTS : strerror(errno);
	}
	if (fstat(r->file, &st) || !made_add(r, name, &st, true)) {
		close(r->file);
		r->file = -1;
		return "out of memory";
	}
	r->files_kept++; /* it is there from now on */
	return NULL;
}

/* Opens NAME.spoor.part for a save, or NAME.spoor itself for a recording. */
static const char *begin(struct receiver *r, const char *name, bool replace, bool recording)
{
	static char why[TTRACE_EXPORT_LINE_MAX];
	char p[4096];

	drop(r);
	if (!name_ok(name)) {
		return "bad name";
	}
	if (r->files_kept >= r->max_files) {
		snprintf(why, sizeof(why), "limit: %" PRIu64 " files saved this run (--max-files)",
			 r->max_files);
		return why;
	}
	path(p, sizeof(p), r, name, TTRACE_FILE_SUFFIX);
	/* Said early, to spare sending the file; the rename in end() is what holds. */
	if (replace ? !replaceable(r, name, p) : access(p, F_OK) == 0) {
		return replace ? EXISTS_NOT_OURS : EXISTS;
	}
	memcpy(r->name, name, strlen(name) + 1); /* name_ok(): it fits */
	r->replace = replace;
	r->recording = recording;
	if (recording) {
		const char *why = open_recording(r, p, name, replace);
		if (why) {
			return why;
		}
	} else {
		path(p, sizeof(p), r, name, TTRACE_FILE_SUFFIX ".part");
		r->file = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (r->file < 0) {
			return strerror(errno);
		}
	}
	r->bytes = r->base = 0;
	r->checksum = TTRACE_FNV_OFFSET;
	r->seal = (struct seal){.sum = TTRACE_FNV_OFFSET};
	return NULL;
}

/*
 * A recording a restarted traced goes on with: NAME.spoor, which must be
 * bytes long (as the guest left it), appended to from there on.
 */
static const char *resume(struct receiver *r, const char *name, uint64_t bytes)
{
	static char why[TTRACE_EXPORT_LINE_MAX];
	char p[4096];
	uint8_t buf[65536];
	struct stat st;

	drop(r);
	if (!name_ok(name)) {
		return "bad name";
	}
	/* Nothing is opened, so nothing said, of a file this run did not record. */
	if (!made_find(r, name)) {
		return NOT_OURS;
	}
	path(p, sizeof(p), r, name, TTRACE_FILE_SUFFIX);
	int fd = open(p, O_RDWR | O_APPEND | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0) {
			close(fd);
		}
		return strerror(errno);
	}
	if (!ours(r, name, &st, true)) {
		close(fd);
		return NOT_OURS;
	}
	if ((uint64_t)st.st_size != bytes) {
		close(fd);
		snprintf(why, sizeof(why), "size: the file has %lld bytes, not %" PRIu64,
			 (long long)st.st_size, bytes);
		return why;
	}
	/* The chunks' checksums go on over the whole file: what is there first, in whole words. */
	uint64_t sum = TTRACE_FNV_OFFSET;
	off_t at = 0;
	for (ssize_t n; (n = pread(fd, buf, sizeof(buf), at)) > 0 && n % 8 == 0; at += n) {
		sum = ttrace_sum_words(sum, buf, (size_t)n);
	}
	if (at != (off_t)bytes) {
		close(fd);
		return "size: the file is not whole words, or cannot be read";
	}
	memcpy(r->name, name, strlen(name) + 1); /* name_ok(): it fits */
	r->file = fd;
	r->recording = true;
	r->replace = false;
	r->base = bytes;
	r->bytes = 0;
	r->seal = (struct seal){.sum = sum, .begun = true};
	return NULL;
}

/*
 * A recording's record, copied out of the window (the guest cannot change
 * it between its checksums and its write) and sealed: NULL, with *p the
 * copy, or why not.
 */
static const char *sealed(struct receiver *r, const uint8_t **p, uint64_t len)
{
	if (len > r->copy_size) {
		uint8_t *grown = realloc(r->copy, len);
		if (!grown) {
			return "out of memory";
		}
		r->copy = grown;
		r->copy_size = len;
	}
	memcpy(r->copy, *p, len);
	*p = r->copy;
	return seal_record(&r->seal, r->copy, len);
}

/* The window's sink (window.h): a record's bytes appended to the file in progress. */
static const char *sink(void *ctx, const uint8_t *p, uint64_t len)
{
	struct receiver *r = ctx;
	static char why_limit[TTRACE_EXPORT_LINE_MAX];

	if (len > r->max_bytes - r->bytes_kept - r->bytes) {
		snprintf(why_limit, sizeof(why_limit),
			 "limit: %" PRIu64 " bytes saved this run (--max-bytes)", r->max_bytes);
		return why_limit;
	}
	const char *why = r->recording ? sealed(r, &p, len) : NULL;
	if (why) {
		return why;
	}
	for (uint64_t done = 0; done < len;) {
		ssize_t n = write(r->file, p + done, len - done);
		if (n <= 0) {
			return strerror(errno);
		}
		done += (uint64_t)n;
	}
	if (!r->recording) {
		r->checksum = ttrace_sum_words(r->checksum, p, len);
	}
	r->bytes += len;
	return NULL;
}

/* Maps DIR/.export.window (again when QEMU made it anew): NULL or why not. */
static const char *window_map(struct receiver *r)
{
	char p[4096];
	struct stat st;

	path(p, sizeof(p), r, ".export", ".window");
	int fd = open(p, O_RDWR);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0) {
			close(fd);
		}
		return "no export window";
	}
	if (r->win.base && (size_t)st.st_size == r->win.size) {
		close(fd);
		return NULL;
	}
	if (r->win.base) {
		munmap(r->win.base, r->win.size);
		r->win.base = NULL;
	}
	void *w = st.st_size
		      ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
		      : MAP_FAILED;
	close(fd);
	if (w == MAP_FAILED) {
		return "the export window cannot be mapped";
	}
	r->win.base = w;
	r->win.size = (size_t)st.st_size;
	return NULL;
}

/*
 * Takes what the guest published: into the file in progress, or with none
 * nowhere. A bad window or a refused record drops the file, says so once,
 * and tells the guest (the window's refused word, and the end line).
 */
static void take(struct receiver *r)
{
	const char *why = window_map(r);

	if (!why) {
		why = r->file >= 0 ? window_take(&r->win, sink, r) : window_skip(&r->win);
	}
	if (!why || r->file < 0) {
		return;
	}
	say("dropped %s.spoor: %s", r->name, why);
	snprintf(r->broken, sizeof(r->broken), "%s", why);
	window_refuse(&r->win, strncmp(why, "limit:", strlen("limit:"))
				   ? TTRACE_EXPORT_REFUSED_IO
				   : TTRACE_EXPORT_REFUSED_LIMIT);
	drop(r);
	window_skip(&r->win);
}

/*
 * The end line: "end BYTES CHECKSUM" of a save, "end BYTES" of a recording,
 * whose checksums the host computed itself (sums: whether it said one).
 */
static const char *end(struct receiver *r, uint64_t bytes, uint64_t checksum, bool sums)
{
	char from[4096], to[4096];

	if (r->file < 0) {
		return r->broken[0] ? r->broken : "no file begun";
	}
	if (sums == r->recording) {
		drop(r);
		return r->recording ? "a recording's end line has no checksum (the host makes them)"
				    : "a save's end line needs its checksum";
	}
	if (bytes != r->base + r->bytes || (sums && checksum != r->checksum)) {
		drop(r);
		return "length or checksum differ from what arrived";
	}
	if (r->recording) {
		drop(r); /* whole: it stays where it grew */
		return NULL;
	}
	struct stat st;
	int err = fstat(r->file, &st) ? errno : 0; /* the inode the rename keeps */
	close(r->file);
	r->file = -1;
	path(from, sizeof(from), r, r->name, TTRACE_FILE_SUFFIX ".part");
	path(to, sizeof(to), r, r->name, TTRACE_FILE_SUFFIX);
	if (err || (r->replace && !replaceable(r, r->name, to))) {
		unlink(from);
		return err ? strerror(err) : EXISTS_NOT_OURS;
	}
	/* renameat2() through syscall(): glibc gained its wrapper only in 2.28. */
	if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to,
		    r->replace ? 0 : RENAME_NOREPLACE)) {
		const char *why = errno == EEXIST ? EXISTS : strerror(errno);
		unlink(from);
		return why;
	}
	if (!made_add(r, r->name, &st, false)) {
		return "out of memory";
	}
	r->files_kept++;
	r->bytes_kept += r->bytes;
	return NULL;
}

/* Carries out one line; the answer goes back on the channel. */
static void serve(struct receiver *r, const char *line)
{
	char name[TTRACE_EXPORT_LINE_MAX], answer[TTRACE_EXPORT_LINE_MAX];
	char how[TTRACE_EXPORT_LINE_MAX];
	uint64_t a, b;
	const char *why;
	int ends;
	bool recording = !strncmp(line, "record ", strlen("record "));
	int words = sscanf(line, recording ? "record %127s %127s" : "begin %127s %127s", name, how);

	take(r); /* the guest published it all before the line */
	bool starts = words >= 1 || !strncmp(line, "resume ", strlen("resume "));
	if (starts) {
		r->broken[0] = '\0';
		window_refuse(&r->win, 0);
	}
	if (words == 1 || (words == 2 && !strcmp(how, "replace"))) {
		why = begin(r, name, words == 2, recording);
	} else if (words == 2) {
		why = "unknown request";
	} else if (sscanf(line, "resume %127s %" SCNu64, name, &a) == 2) {
		why = resume(r, name, a);
	} else if ((ends = sscanf(line, "end %" SCNu64 " %" SCNx64, &a, &b)) >= 1) {
		why = end(r, a, b, ends == 2);
	} else {
		why = "unknown request";
	}
	int n = why ? snprintf(answer, sizeof(answer), "error %s\n", why)
		    : snprintf(answer, sizeof(answer), "ok\n");
	if (why) {
		say("refused '%s': %s", line, why);
		drop(r);
		r->broken[0] = '\0'; /* said: why may be it */
	}
	if (write(r->out, answer, (size_t)n) != n) {
		say("cannot answer: %s", strerror(errno));
	}
}

/* A limit's value: a positive decimal number, whole. */
static bool limit_arg(const char *text, uint64_t *value)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text || *end || !v || text[0] == '-') {
		return false;
	}
	*value = v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
	    {"max-files", required_argument, NULL, 'f'},
	    {"max-bytes", required_argument, NULL, 'b'},
	    {0},
	};
	struct receiver r = {.file = -1, .max_files = SAVE_FILES_MAX, .max_bytes = SAVE_BYTES_MAX};
	char p[4096], line[TTRACE_EXPORT_LINE_MAX];
	size_t len = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if ((opt != 'f' && opt != 'b') ||
		    !limit_arg(optarg, opt == 'f' ? &r.max_files : &r.max_bytes)) {
			optind = argc + 1; /* a usage error */
			break;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: spoor-receive [--max-files N] [--max-bytes N] DIR PID "
				"(N: a positive number)\n");
		return 2;
	}
	r.dir = argv[optind];
	pid_t qemu = (pid_t)atol(argv[optind + 1]);
	/* Non-blocking opens: neither waits for QEMU, which may not have opened its ends yet. */
	path(p, sizeof(p), &r, ".export", ".out");
	r.in = open(p, O_RDONLY | O_NONBLOCK);
	path(p, sizeof(p), &r, ".export", ".in");
	r.out = open(p, O_RDWR);
	if (r.in < 0 || r.out < 0 || qemu <= 0) {
		say("cannot open the channel in %s: %s", r.dir, strerror(errno));
		return 2;
	}
	/*
	 * QEMU's end, told by a pidfd, which polls readable once QEMU has
	 * exited: kill(qemu, 0) still finds it while it is a zombie, and its
	 * parent (pexpect, for the tests) may wait for the console's end
	 * before it reaps it, which our inherited end of it holds open.
	 */
	int qemu_fd = (int)syscall(SYS_pidfd_open, qemu, 0);
	if (qemu_fd < 0 && errno != ESRCH) {
		say("cannot watch QEMU's process %d: %s", (int)qemu, strerror(errno));
		return 2;
	}
	while (qemu_fd >= 0 && !poll(&(struct pollfd){.fd = qemu_fd, .events = POLLIN}, 1, 0)) {
		struct pollfd pfd = {.fd = r.in, .events = POLLIN};
		int ready = poll(&pfd, 1, r.file >= 0 ? TAKE_MS : POLL_MS);
		if (r.file >= 0) {
			take(&r);
		}
		if (ready <= 0) {
			continue;
		}
		char c;
		ssize_t n = read(r.in, &c, 1);
		if (n <= 0) {
			usleep(POLL_MS * 1000); /* no writer yet, or QEMU gone: its pidfd tells */
			continue;
		}
		if (c != '\n') {
			if (len < sizeof(line) - 1) {
				line[len++] = c;
			}
			continue;
		}
		line[len] = '\0';
		len = 0;
		serve(&r, line);
	}
	if (r.file >= 0) {
		take(&r); /* what QEMU's guest published before it ended is the file's */
	}
	drop(&r);
	free(r.made);
	free(r.copy);
	return 0;
}
