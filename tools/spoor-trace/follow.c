/*
 * follow: `spoor-trace follow [FILTERS] NAME|FILE`, a recording's events
 * as they arrive (see follow.h). Each time the file grows it reads only
 * the bytes appended and parses only the chunks they complete
 * (tfile_parse_more()), which keeps every check of tfile_parse() on every
 * byte it prints at the cost of the new bytes alone, and prints the items
 * past those it printed before. A file not there yet is waited for, and
 * one replaced or truncated is followed again from its start, as tail -F
 * does.
 */
#include "tools/spoor-trace/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/trace_filter.h"
#include "common/trace_format.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/graph.h"
#include "tools/spoor-trace/select.h"
#include "tools/spoor-trace/view.h"

#define POLL_NS	    200000000L /* between looks at the file */
#define EXIT_BAD    2
#define EXIT_OUTPUT 1
#define TRACES_DIR  "build/traces/"

/* What follow has printed: the events and losses shown, and where in the file it is. */
struct shown {
	uint64_t events, lost;
	struct tfile_iter it; /* the next item to print */
};

/*
 * Prints f's items past those printed before; true once the file is
 * whole (its ledger read), having printed the end line: what was shown.
 */
static bool print_new(const struct tfile *f, const struct ttrace_filter *flt, struct shown *s)
{
	char line[TTRACE_LINE_MAX];
	struct tfile_item item;
	struct tview v;

	if (tview_init(&v, f)) {
		return false; /* out of memory: the next look tries again */
	}
	/* Per CPU, an event a later chunk may still have others before waits for it. */
	s->it.until_ts = tfile_settled_ts(f);
	while (tfile_next(&s->it, &item)) {
		if (item.lost && ttrace_filter_cpu(&flt->f, item.lost_cpu)) {
			ttrace_format_lost(line, sizeof(line), item.lost_cpu, item.lost_count);
			fputs(line, stdout);
			s->lost += item.lost_count;
		} else if (!item.lost && tselect_passes(&v, flt, NULL, &item.rec, false)) {
			/* as the text prints it (text.h) */
			size_t len = graph_event(&item.rec) ? graph_line(&v, &item.rec, line)
							    : tview_line(&v, &item.rec, line);
			fwrite(line, 1, len, stdout);
			fputc('\n', stdout);
			s->events++;
		}
	}
	tview_fini(&v);
	if (!f->ends_early) {
		ttrace_format_end(line, sizeof(line), s->events, s->lost);
		fputs(line, stdout);
	}
	fflush(stdout);
	return !f->ends_early;
}

/*
 * The file as followed: what has been read of it (only what was
 * appended is read each time), and the recording parsed from it.
 */
struct followed {
	const char *prog, *path;
	int fd;	   /* -1 while the file is not there */
	ino_t ino; /* of the file fd reads */
	uint8_t *data;
	size_t size;	   /* bytes read */
	bool parsing;	   /* f holds the file's header at least */
	bool said_missing; /* "waiting for it" was said */
	struct tfile f;
	struct shown shown;
};

/* Forgets the file: the next look opens the path again, from its start. */
static void forget(struct followed *w)
{
	tfile_free(&w->f);
	memset(&w->f, 0, sizeof(w->f)); /* a new file is parsed from its start */
	if (w->fd >= 0) {
		close(w->fd);
	}
	free(w->data);
	w->fd = -1;
	w->data = NULL;
	w->size = 0;
	w->parsing = false;
	w->shown = (struct shown){0};
}

/*
 * Reads what was appended since the last look. 0 (nothing new, or the
 * file not there yet: *grew false), or -1 having said why it cannot.
 */
static int read_more(struct followed *w, bool *grew)
{
	struct stat st;

	*grew = false;
	if (w->fd >= 0 && (stat(w->path, &st) || st.st_ino != w->ino)) {
		/* Replaced or removed, as tail -F sees it: the new file from its start. */
		fprintf(stderr, "%s: %s has been replaced; following the new file\n", w->prog,
			w->path);
		forget(w);
	}
	if (w->fd < 0) {
		w->fd = open(w->path, O_RDONLY);
		if (w->fd < 0 && errno == ENOENT) {
			if (!w->said_missing) {
				fprintf(stderr, "%s: %s does not exist yet; waiting for it\n",
					w->prog, w->path);
				w->said_missing = true;
			}
			return 0;
		}
		if (w->fd < 0 || fstat(w->fd, &st)) {
			fprintf(stderr, "%s: %s: %s\n", w->prog, w->path, strerror(errno));
			return -1;
		}
		w->ino = st.st_ino;
	}
	if (fstat(w->fd, &st)) {
		fprintf(stderr, "%s: %s: %s\n", w->prog, w->path, strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size < w->size) {
		fprintf(stderr, "%s: %s has been truncated; following it from its start\n", w->prog,
			w->path);
		forget(w);
		return 0;
	}
	if ((uint64_t)st.st_size == w->size) {
		return 0;
	}
	uint8_t *more = realloc(w->data, (size_t)st.st_size);
	if (!more) {
		fprintf(stderr, "%s: %s: %s\n", w->prog, w->path, strerror(ENOMEM));
		return -1;
	}
	w->data = more;
	while (w->size < (size_t)st.st_size) {
		ssize_t n =
		    pread(w->fd, w->data + w->size, (size_t)st.st_size - w->size, (off_t)w->size);
		if (n < 0) {
			fprintf(stderr, "%s: %s: %s\n", w->prog, w->path, strerror(errno));
			return -1;
		}
		if (!n) {
			break; /* truncated meanwhile: the next look sees it */
		}
		w->size += (size_t)n;
	}
	*grew = true;
	return 0;
}

/*
 * Parses what was read, from the last whole chunk on. 1: f holds the
 * file up to its last whole chunk (it may end early), 0: nothing of it
 * is whole yet, -1: refused (said why).
 */
static int parse_more(struct followed *w)
{
	char why[TFILE_WHY_MAX];
	int err = tfile_parse_more(&w->f, w->data, w->size, why, sizeof(why));

	if (err && err != -EAGAIN) {
		w->parsing = false; /* tfile_parse_more() freed it */
		fprintf(stderr, "%s: %s: %s\n", w->prog, w->path, why);
		return -1;
	}
	if (!w->parsing && w->f.parsed) {
		w->parsing = true;
		tfile_iter_start(&w->shown.it, &w->f);
	}
	return w->parsing;
}

int follow_run(const char *prog, int argc, char **argv)
{
	struct ttrace_filter flt;
	char why[512];
	char path[4096];
	int status = -1;

	if (argc < 1) {
		ttrace_filter_usage(why, sizeof(why), FOLLOW_FILTERS);
		fprintf(stderr, "%s: follow takes [FILTERS] NAME|FILE (filters: %s)\n", prog, why);
		return EXIT_BAD;
	}
	/* The file may not be there yet: its CPUs are not known, so any CPU a trace can have. */
	if (ttrace_filter_parse(argc - 1, argv, TTRACE_MAX_CPUS, FOLLOW_FILTERS, &flt, why,
				sizeof(why))) {
		fprintf(stderr, "%s: follow: %s\n", prog, why);
		return EXIT_BAD;
	}
	const char *name = argv[argc - 1];
	snprintf(path, sizeof(path), "%s%s%s", strchr(name, '/') ? "" : TRACES_DIR, name,
		 strchr(name, '/') || strstr(name, TTRACE_FILE_SUFFIX) ? "" : TTRACE_FILE_SUFFIX);
	struct followed w = {.prog = prog, .path = path, .fd = -1};
	while (status < 0) {
		bool grew;
		int parsed = 0;
		if (read_more(&w, &grew)) {
			status = EXIT_BAD;
		} else if (grew && (parsed = parse_more(&w)) < 0) {
			status = EXIT_BAD;
		} else if (parsed > 0 && print_new(&w.f, &flt, &w.shown)) {
			status = 0;
		} else if (ferror(stdout)) {
			status = EXIT_OUTPUT;
		} else if (!grew || !parsed) {
			struct timespec ts = {.tv_nsec = POLL_NS};
			nanosleep(&ts, NULL);
		}
	}
	forget(&w);
	return ferror(stdout) ? EXIT_OUTPUT : status;
}
