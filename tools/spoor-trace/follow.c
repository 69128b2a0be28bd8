/*
 * follow: `spoor-trace follow [FILTERS] NAME|FILE`, a recording's events
 * as they arrive (see follow.h). It reads the file again each time it
 * grows, which keeps every check of tfile_parse() on every byte it
 * prints, and prints the items past those it printed before.
 */
#include "tools/spoor-trace/follow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/* What follow has printed: items walked, and of them the events and losses shown. */
struct shown {
	uint64_t items, events, lost;
};

/*
 * Prints f's items past those *s counted; true once the file is whole
 * (its ledger read), having printed the end line: what was shown.
 */
static bool print_new(const struct tfile *f, const struct follow_filter *flt, struct shown *s)
{
	char line[TTRACE_LINE_MAX];
	struct tfile_iter it;
	struct tfile_item item;
	struct tview v;
	uint64_t n = 0;

	if (tview_init(&v, f)) {
		return false; /* out of memory: the next look tries again */
	}
	tfile_iter_start(&it, f);
	while (tfile_next(&it, &item)) {
		if (n++ < s->items) {
			continue;
		}
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
	s->items = n;
	tview_fini(&v);
	if (!f->ends_early) {
		ttrace_format_end(line, sizeof(line), s->events, s->lost);
		fputs(line, stdout);
	}
	fflush(stdout);
	return !f->ends_early;
}

int follow_run(const char *prog, int argc, char **argv)
{
	struct follow_filter flt = {0};
	char path[4096], why[TFILE_WHY_MAX];
	struct shown shown = {0};
	off_t tried = -1; /* the size of the last file refused */

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
	for (off_t seen = -1;;) {
		struct stat st;
		if (stat(path, &st)) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			return EXIT_BAD;
		}
		if (st.st_size != seen) {
			seen = st.st_size;
			uint8_t *data;
			size_t size;
			struct tfile f;
			int err = tfile_read(path, &data, &size);
			if (err) {
				fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(-err));
				return EXIT_BAD;
			}
			err = tfile_parse(data, size, &f, why, sizeof(why));
			/* A chunk half written when it was read is whole at the next look. */
			if (err && tried == (off_t)size) {
				fprintf(stderr, "%s: %s: %s\n", prog, path, why);
				free(data);
				return EXIT_BAD;
			}
			tried = err ? (off_t)size : -1;
			bool whole = !err && print_new(&f, &flt, &shown);
			if (!err) {
				tfile_free(&f);
			}
			free(data);
			if (ferror(stdout)) {
				return EXIT_OUTPUT;
			}
			if (whole) {
				return 0;
			}
			if (err) {
				seen = -1; /* look again even if it has not grown */
			}
		}
		struct timespec ts = {.tv_nsec = POLL_NS};
		nanosleep(&ts, NULL);
	}
}
