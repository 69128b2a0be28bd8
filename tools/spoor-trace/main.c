/*
 * spoor-trace: reads a trace `trace save` or `trace record` wrote
 * (abi/trace_file.h) and converts it. Its subcommands, one a converter,
 * are the list commands[] below, from which the usage, the dispatch and
 * the errors about a subcommand come.
 *
 * Call stacks are named from the build's ELF files (symbols.h).
 *
 * Every subcommand that reads a saved trace takes FILTERS, the words
 * `trace dump` takes and comm= (common/trace_filter.h), anywhere after
 * its name: a word with an = is a filter. They choose the events once,
 * as the file is read (select.h), so every output holds what `text` with
 * the same words prints.
 *
 * An output that exists already is left alone (exit status 2) unless -f
 * comes before the subcommand; -h or --help prints the usage on standard
 * output.
 *
 * Exit status: 0 on success and for -h; 2 for wrong arguments (usage on
 * stderr), an output that exists, or a file that is not a good trace (one
 * line naming what and where); 1 when the output cannot be written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/traced_words.h"
#include "tools/spoor-trace/ctf.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/flame.h"
#include "tools/spoor-trace/follow.h"
#include "tools/spoor-trace/info.h"
#include "tools/spoor-trace/perfetto.h"
#include "tools/spoor-trace/pprof.h"
#include "tools/spoor-trace/report.h"
#include "tools/spoor-trace/select.h"
#include "tools/spoor-trace/stacks.h"
#include "tools/spoor-trace/stats.h"
#include "tools/spoor-trace/symbols.h"
#include "tools/spoor-trace/text.h"
#include "tools/spoor-trace/timeline.h"
#include "tools/spoor-trace/tracedat.h"
#include "tools/spoor-trace/view.h"

#define EXIT_BAD_INPUT 2
#define EXIT_OUTPUT    1

static const char prog[] = "spoor-trace";

/*
 * One subcommand. commands[] (below the converters) is the one list the
 * usage, the dispatch and the errors about a subcommand come from.
 */
struct command {
	const char *name;
	int nargs; /* after the subcommand: FILE and the output, if any */
	const char *usage;
	/*
	 * The FILTERS keys it takes (TTRACE_FILTER_*): a saved file's
	 * (TTRACE_FILTER_HOST, "[FILTERS]" after the usage), or others, which
	 * the usage lists.
	 */
	uint32_t filters;
	int (*run)(struct tview *v, const char *file, const char *out);
	/*
	 * NULL, or takes the command's options out of argv[2..argc) and
	 * returns the new argc; -1 after saying what is wrong.
	 */
	int (*options)(int argc, char **argv);
	/*
	 * A subcommand that reads no saved trace of its own (follow) runs
	 * alone on the words after its name, instead of run, and returns the
	 * exit status.
	 */
	int (*run_alone)(const char *prog, int argc, char **argv);
	bool out_optional; /* the output may be left out: then it goes to standard output */
};

static int output_failed(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
	return EXIT_OUTPUT;
}

static int run_text(struct tview *v, const char *file, const char *out)
{
	(void)file;
	(void)out;
	int err = text_convert(v, stdout);
	return err ? output_failed("standard output", err) : 0;
}

/* The trace's name: the file's, without its folders and .spoor. */
static void trace_name(const char *file, char *buf, size_t size)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = strlen(base);
	if (len > strlen(TTRACE_FILE_SUFFIX) &&
	    !strcmp(base + len - strlen(TTRACE_FILE_SUFFIX), TTRACE_FILE_SUFFIX)) {
		len -= strlen(TTRACE_FILE_SUFFIX);
	}
	snprintf(buf, size, "%.*s", (int)len, base);
}

static int run_ctf(struct tview *v, const char *file, const char *dir)
{
	char why[512];
	char name[256];

	trace_name(file, name, sizeof(name));
	int err = ctf_convert_dir(v, name, dir, why, sizeof(why));
	if (err) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return err == -EEXIST ? EXIT_BAD_INPUT : EXIT_OUTPUT;
	}
	return 0;
}

/*
 * Runs convert into the file at path; on an error the file goes, since a
 * file cut short would mislead its readers. Returns 0 or convert's -errno.
 */
static int write_file(struct tview *v, const char *path, int (*convert)(struct tview *, FILE *))
{
	FILE *out = fopen(path, "w");
	int err;

	if (!out) {
		return -errno;
	}
	err = convert(v, out);
	if (fclose(out) && !err) {
		err = -EIO;
	}
	if (err) {
		remove(path);
	}
	return err;
}

static int to_file(struct tview *v, const char *path, int (*convert)(struct tview *, FILE *))
{
	int err = write_file(v, path, convert);
	return err ? output_failed(path, err) : 0;
}

static int run_perfetto(struct tview *v, const char *file, const char *out)
{
	(void)file;
	return to_file(v, out, perfetto_convert);
}

/* What tracedat_write() found no page for: set by it, read by run_tracedat(). */
static uint64_t tracedat_unplaced[TTRACE_MAX_CPUS];

static int tracedat_write(struct tview *v, FILE *out)
{
	return tracedat_convert(v, out, tracedat_unplaced);
}

static int run_tracedat(struct tview *v, const char *file, const char *path)
{
	int err = write_file(v, path, tracedat_write);

	if (err == -E2BIG) {
		fprintf(stderr, "%s: %s: more event classes than ftrace's 16-bit IDs number\n",
			prog, file);
		return EXIT_BAD_INPUT;
	}
	for (uint32_t c = 0; !err && c < TTRACE_MAX_CPUS; c++) {
		if (tracedat_unplaced[c]) {
			fprintf(stderr,
				"%s: %s: cpu %u lost %llu events and kept none: trace.dat has no "
				"page to mark them on\n",
				prog, file, c, (unsigned long long)tracedat_unplaced[c]);
		}
	}
	return err ? output_failed(path, err) : 0;
}

/* What the timeline's options chose: set by timeline_options(), read by run_timeline(). */
static struct timeline_opts timeline_opts;

static int timeline_options(int argc, char **argv)
{
	char why[256];
	int n = timeline_opts_parse(&timeline_opts, argc - 1, argv + 1, why, sizeof(why));

	if (n < 0) {
		fprintf(stderr, "%s: timeline: %s\n", prog, why);
	}
	return n < 0 ? -1 : n + 1;
}

static int draw_timeline(struct tview *v, FILE *out)
{
	return timeline_draw(v, &timeline_opts, out);
}

static int run_timeline(struct tview *v, const char *file, const char *out)
{
	char why[256];

	if (timeline_opts_check(&timeline_opts, v, why, sizeof(why))) {
		fprintf(stderr, "%s: timeline: %s: %s\n", prog, file, why);
		return EXIT_BAD_INPUT;
	}
	return to_file(v, out, draw_timeline);
}

/* What a stack answer says when it cannot: a trace without stacks is bad input for it. */
static int stacks_failed(const char *file, int err)
{
	if (err == -ENOENT) {
		fprintf(stderr,
			"%s: %s: no call stacks (trace profile, or trace stack on KINDS, before "
			"saving)\n",
			prog, file);
		return EXIT_BAD_INPUT;
	}
	return output_failed("standard output", err);
}

/* --idle (report, flamegraph) and --folded (flamegraph): set by the options, read by the runs. */
static uint32_t stacks_flags;
static bool flame_folded_text;

/* Takes the flags names[] lists (each sets the bool of its index) from argv[2..argc). */
static int take_flags(int argc, char **argv, const char *const *names, bool *set, int n)
{
	for (int i = 2; i < argc;) {
		int k = 0;
		while (k < n && strcmp(argv[i], names[k])) {
			k++;
		}
		if (k == n) {
			i++;
			continue;
		}
		set[k] = true;
		memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
		argc--;
	}
	return argc;
}

static int report_options(int argc, char **argv)
{
	static const char *const names[] = {"--idle"};
	bool set[1] = {false};

	argc = take_flags(argc, argv, names, set, 1);
	stacks_flags = set[0] ? STACKS_IDLE : 0;
	return argc;
}

static int run_report(struct tview *v, const char *file, const char *out)
{
	(void)out;
	int err = report_write(v, stacks_flags, stdout);
	return err ? stacks_failed(file, err) : 0;
}

static int run_pprof(struct tview *v, const char *file, const char *path)
{
	int err = write_file(v, path, pprof_convert);

	return err == -ENOENT ? stacks_failed(file, err) : err ? output_failed(path, err) : 0;
}

static int flame_options(int argc, char **argv)
{
	static const char *const names[] = {"--folded", "--idle", "--graph"};
	bool set[3] = {false, false, false};

	argc = take_flags(argc, argv, names, set, 3);
	flame_folded_text = set[0];
	stacks_flags = (set[1] ? STACKS_IDLE : 0) | (set[2] ? FLAME_GRAPH : 0);
	return argc;
}

static int draw_flame(struct tview *v, FILE *out)
{
	return flame_folded_text ? flame_folded(v, stacks_flags, out)
				 : flame_svg(v, stacks_flags, out);
}

static int run_flamegraph(struct tview *v, const char *file, const char *out)
{
	/* Into OUT.svg as every converter writes (nothing left on an error), else standard output.
	 */
	int err = out ? write_file(v, out, draw_flame) : draw_flame(v, stdout);

	if (err == -ENOENT) {
		return stacks_failed(file, err);
	}
	return err ? output_failed(out ? out : "standard output", err) : 0;
}

/*
 * The question stats and hist answer: the form, hist_options()'s measure,
 * key and path, and (set by main) the filter. Read by run_stats().
 */
static struct traced_stats_request stats_req = {.form = TRACED_STATS_TABLE};

/* hist's MEASURE [KEY=VALUE] [path=P] after FILE, taken out of argv as the shell takes them. */
static int hist_options(int argc, char **argv)
{
	char why[512];

	if (argc < 3) {
		return argc; /* no FILE: the usage says what hist takes */
	}
	int used = traced_hist_parse(argc - 3, argv + 3, &stats_req, why, sizeof(why));
	if (used < 0) {
		fprintf(stderr, "%s: hist: %s\n", prog, why);
		return -1;
	}
	memmove(&argv[3], &argv[3 + used], (size_t)(argc - 3 - used + 1) * sizeof(*argv));
	return argc - used;
}

static int run_stats(struct tview *v, const char *file, const char *out)
{
	(void)file;
	(void)out;
	int err = stats_write(v, &stats_req, stdout);
	return err ? output_failed("standard output", err) : 0;
}

static int run_info(struct tview *v, const char *file, const char *out)
{
	(void)file;
	(void)out;
	int err = info_write(v, stdout);
	return err ? output_failed("standard output", err) : 0;
}

static const struct command commands[] = {
    /* the lines `trace dump` prints */
    {"text", 1, "FILE", TTRACE_FILTER_HOST, run_text, NULL, NULL, false},
    /* a recording's events as they arrive (follow.h) */
    {"follow", 0, "[FILTERS] NAME|FILE", FOLLOW_FILTERS, NULL, NULL, follow_run, false},
    /* a CTF 1.8 trace (babeltrace2, Trace Compass) */
    {"ctf", 2, "FILE DIR", TTRACE_FILTER_HOST, run_ctf, NULL, NULL, false},
    /* Trace Event JSON (ui.perfetto.dev) */
    {"perfetto", 2, "FILE OUT.json", TTRACE_FILTER_HOST, run_perfetto, NULL, NULL, false},
    /* ftrace's trace.dat (trace-cmd report, KernelShark; tracedat.h) */
    {"tracedat", 2, "FILE OUT.dat", TTRACE_FILTER_HOST, run_tracedat, NULL, NULL, false},
    /* an SVG picture of the CPUs; the options choose the window, CPUs and processes */
    {"timeline", 2, TIMELINE_OPTS_USAGE " FILE OUT.svg", TTRACE_FILTER_HOST, run_timeline,
     timeline_options, NULL, false},
    /* where the samples' time went, per function (report.h) */
    {"report", 1, "[--idle] FILE", TTRACE_FILTER_HOST, run_report, report_options, NULL, false},
    /* the stacks as a pprof profile (go tool pprof; pprof.h) */
    {"pprof", 2, "FILE OUT.pb.gz", TTRACE_FILTER_HOST, run_pprof, NULL, NULL, false},
    /* a flame graph (SVG) of the stacks, or their folded text (flame.h); standard output without
       OUT */
    {"flamegraph", 2, "[--folded] [--idle] [--graph] FILE [OUT.svg]", TTRACE_FILTER_HOST,
     run_flamegraph, flame_options, NULL, true},
    /* what the file holds: CPUs, span, ledger, kinds, programs (info.h) */
    {"info", 1, "FILE", TTRACE_FILTER_HOST, run_info, NULL, NULL, false},
    /* the shell's trace stats: counts of each kind and latency percentiles (stats.h) */
    {"stats", 1, "FILE", TTRACE_FILTER_HOST, run_stats, NULL, NULL, false},
    /* the shell's trace hist: one measure's log2 histogram (stats.h) */
    {"hist", 1, "FILE MEASURE [KEY=VALUE] [path=P]", TTRACE_FILTER_HOST, run_stats, hist_options,
     NULL, false},
};

static const size_t ncommands = sizeof(commands) / sizeof(commands[0]);

/* A subcommand that writes an output file takes -f, which lets it replace one. */
static void print_usage(FILE *to)
{
	char filters[256];

	for (size_t i = 0; i < ncommands; i++) {
		const struct command *c = &commands[i];

		fprintf(to, "%s %s%s %s %s", i ? "      " : "usage:", prog,
			c->nargs > 1 ? " [-f]" : "", c->name, c->usage);
		if (c->filters == TTRACE_FILTER_HOST) {
			fputs(" [FILTERS]\n", to);
		} else {
			ttrace_filter_usage(filters, sizeof(filters), c->filters);
			fprintf(to, "   (filters: %s)\n", filters);
		}
	}
	ttrace_filter_usage(filters, sizeof(filters), TTRACE_FILTER_HOST);
	fprintf(to,
		"       %s -h|--help\n"
		"  -f       replace an output that exists (else it is left alone)\n"
		"  FILTERS  %s\n",
		prog, filters);
}

static int usage(void)
{
	print_usage(stderr);
	return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	char why[TFILE_WHY_MAX];
	uint8_t *data = NULL;
	size_t size = 0;
	struct tfile f;
	struct tview v;
	bool force = false;
	int status = 0;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "-f")) {
		force = true;
		argc--;
		argv++;
	}
	for (size_t i = 0; argc >= 2 && i < ncommands; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cmd = &commands[i];
		}
	}
	if (cmd && cmd->run_alone) {
		return cmd->run_alone(prog, argc - 2, argv + 2);
	}
	if (cmd && cmd->options) {
		argc = cmd->options(argc, argv);
		if (argc < 0) {
			return EXIT_BAD_INPUT;
		}
	}
	/*
	 * The filter words go behind the others, in their order, and the
	 * predicate's (`if` and every word after it, which may hold '=')
	 * behind them: argv[2..argc) is then the subcommand's and
	 * filters[0..nfilters) the filter.
	 */
	int end = argc; /* where the predicate's words start; argc: none */
	for (int i = 2; cmd && cmd->filters & TTRACE_FILTER_PRED && i < argc && end == argc; i++) {
		end = strcmp(argv[i], TTRACE_FILTER_IF) ? argc : i;
	}
	int moved = 0;
	for (int i = 2; i < end - moved;) {
		if (strchr(argv[i], '=')) {
			char *w = argv[i];
			memmove(&argv[i], &argv[i + 1], (size_t)(end - i - 1) * sizeof(*argv));
			argv[end - 1] = w;
			moved++;
		} else {
			i++;
		}
	}
	int nfilters = moved + (argc - end);
	char **filters = argv + end - moved;
	argc = end - moved;
	if (!cmd || (argc != 2 + cmd->nargs && !(cmd->out_optional && argc == 1 + cmd->nargs))) {
		if (cmd) {
			fprintf(stderr, "%s: %s takes %s\n", prog, cmd->name, cmd->usage);
		} else if (argc >= 2) {
			fprintf(stderr, "%s: no subcommand %s\n", prog, argv[1]);
		}
		return usage();
	}
	const char *file = argv[2];
	struct stat st;
	/* Checked before the work, so a mistyped name costs nothing. */
	if (cmd->nargs > 1 && argc > 3 && !force && !stat(argv[3], &st)) {
		fprintf(stderr, "%s: %s exists; not replacing it (-f replaces it)\n", prog,
			argv[3]);
		return EXIT_BAD_INPUT;
	}
	int err = tfile_read(file, &data, &size);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(-err));
		return EXIT_BAD_INPUT;
	}
	err = tfile_parse(data, size, &f, why, sizeof(why));
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, why);
		free(data);
		return EXIT_BAD_INPUT;
	}
	if (f.resumed) {
		fprintf(stderr,
			"%s: %s: the recording went on after %llu restarts of traced; what they "
			"missed is counted lost where it was\n",
			prog, file, (unsigned long long)f.resumed);
	}
	if (f.ends_early) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, f.note);
	}
	if (tview_init(&v, &f)) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, file);
		tfile_free(&f);
		free(data);
		return EXIT_OUTPUT;
	}
	static struct ttrace_filter_pred pred; /* one file a run */
	struct ttrace_filter flt;
	struct tselect sel = {0};
	if (nfilters && (ttrace_filter_parse(nfilters, filters, f.hdr.num_cpus, cmd->filters, &flt,
					     why, sizeof(why)) ||
			 ttrace_filter_pred_compile(flt.pred, &flt.f, &pred, why, sizeof(why)))) {
		fprintf(stderr, "%s: %s: %s\n", prog, cmd->name, why);
		status = EXIT_BAD_INPUT;
	} else if (nfilters && tselect_make(&sel, &v, &flt, pred.kinds ? &pred : NULL)) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, file);
		status = EXIT_OUTPUT;
	}
	if (status) {
		tview_fini(&v);
		tfile_free(&f);
		free(data);
		return status;
	}
	if (nfilters) {
		/* The aux and the decoder stay the file's: only the events change. */
		v.file = &sel.f;
		stats_req.filter = flt.f;
	}
	struct symbols *syms = symbols_open(NULL);
	v.dec.symbolize = syms ? symbols_format : NULL;
	v.dec.symbolize_ctx = syms;
	status = cmd->run(&v, file, cmd->nargs > 1 && argc > 3 ? argv[3] : NULL);
	symbols_close(syms);
	tselect_free(&sel);
	tview_fini(&v);
	tfile_free(&f);
	free(data);
	return status;
}
