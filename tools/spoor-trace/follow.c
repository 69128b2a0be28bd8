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

#include "common/trace_format.h"
#include "common/trace_names.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/view.h"

#define POLL_NS	    200000000L /* between looks at the file */
#define EXIT_BAD    2
#define EXIT_OUTPUT 1
#define KINDS_MAX   (TRACED_KIND_WORDS * 64)
#define TRACES_DIR  "build/traces/"

struct follow_filter {
	uint32_t cpus; /* bit c: CPU c; 0: all */
	bool has_pid;
	uint32_t pid;
	uint64_t cats; /* 0: all */
	uint64_t kinds[TRACED_KIND_WORDS];
	bool has_kinds;
};

static int bad(const char *prog, const char *word, const char *why)
{
	fprintf(stderr, "%s: follow: '%s': %s (%s)\n", prog, word, why, FOLLOW_FILTERS);
	return -1;
}

static bool number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno && *v <= max;
}

/* A kind=LIST's names into f->kinds: 0, or -1 having said which is unknown. */
static int kinds_word(const char *prog, const char *word, const char *list, struct follow_filter *f)
{
	char copy[256];
	char *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint32_t k = 0;
		while (k < KINDS_MAX &&
		       !(ttrace_kind_info(k) && !strcmp(ttrace_kind_info(k)->name, w))) {
			k++;
		}
		if (k == KINDS_MAX) {
			return bad(prog, word, "no such kind");
		}
		f->kinds[k / 64] |= 1ull << (k % 64);
	}
	f->has_kinds = true;
	return 0;
}

/* One FILTERS word: 0, or -1 having said what is wrong. */
static int filter_word(const char *prog, const char *word, struct follow_filter *f)
{
	const char *eq = strchr(word, '=');
	const char *value = eq ? eq + 1 : "";
	size_t key = eq ? (size_t)(eq - word) : 0;
	uint64_t v;

	if (key == 3 && !strncmp(word, "cpu", 3)) {
		if (!number(value, TTRACE_MAX_CPUS - 1, &v)) {
			return bad(prog, word, "not a cpu number");
		}
		f->cpus |= 1u << v;
	} else if (key == 3 && !strncmp(word, "pid", 3)) {
		if (!number(value, UINT32_MAX, &v)) {
			return bad(prog, word, "not a pid");
		}
		f->has_pid = true;
		f->pid = (uint32_t)v;
	} else if (key == 3 && !strncmp(word, "cat", 3)) {
		const char *badcat;
		size_t badlen;
		uint64_t cats;
		if (ttrace_category_parse(value, &cats, &badcat, &badlen)) {
			return bad(prog, word, "no such category");
		}
		f->cats |= cats;
	} else if (key == 4 && !strncmp(word, "kind", 4)) {
		return kinds_word(prog, word, value, f);
	} else {
		return bad(prog, word, "not a filter follow takes");
	}
	return 0;
}

static bool matches(const struct follow_filter *f, const struct ttrace_record *r)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(r->kind);

	return (!f->cpus || f->cpus >> r->cpu & 1) && (!f->has_pid || r->pid == f->pid) &&
	       (!f->cats || (k && k->category & f->cats)) &&
	       (!f->has_kinds ||
		(r->kind < KINDS_MAX && f->kinds[r->kind / 64] >> (r->kind % 64) & 1));
}

/* What follow has printed: the events and losses shown, and where in the file it is. */
struct shown {
	uint64_t events, lost;
	struct tfile_iter it; /* the next item to print */
};

/*
 * Prints f's items past those printed before; true once the file is
 * whole (its ledger read), having printed the end line: what was shown.
 */
static bool print_new(const struct tfile *f, const struct follow_filter *flt, struct shown *s)
{
	char line[TTRACE_LINE_MAX];
	struct tfile_item item;
	struct tview v;

	if (tview_init(&v, f)) {
		return false; /* out of memory: the next look tries again */
	}
	while (tfile_next(&s->it, &item)) {
		if (item.lost && (!flt->cpus || flt->cpus >> item.lost_cpu & 1)) {
			ttrace_format_lost(line, sizeof(line), item.lost_cpu, item.lost_count);
			fputs(line, stdout);
			s->lost += item.lost_count;
		} else if (!item.lost && matches(flt, &item.rec)) {
			size_t len = tview_line(&v, &item.rec, line);
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
	struct follow_filter flt = {0};
	char path[4096];
	int status = -1;

	if (argc < 1) {
		fprintf(stderr, "%s: follow takes [FILTERS] NAME|FILE (%s)\n", prog,
			FOLLOW_FILTERS);
		return EXIT_BAD;
	}
	for (int i = 0; i < argc - 1; i++) {
		if (filter_word(prog, argv[i], &flt)) {
			return EXIT_BAD;
		}
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
