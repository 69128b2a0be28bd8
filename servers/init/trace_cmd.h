/*
 * What the shell's `trace` verbs share across their files: trace_cmd.c
 * holds the list of verbs and most of them, trace_stats.c the answers
 * (`trace stats`, `trace hist`) and their legend, trace_save.c `trace
 * save` and trace_record.c `trace record`.
 */
#ifndef SPOOR_INIT_TRACE_CMD_H
#define SPOOR_INIT_TRACE_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <trace_client.h>

#define WHY_MAX 1400 /* an error from libc's parsers, in one line */

/*
 * One verb: its name, its arguments and what it does. verbs[] in
 * trace_cmd.c is the one list the dispatch, `trace`'s listing, `help`'s
 * line, the usage errors and the unknown-verb error are made from.
 */
struct trace_verb {
	const char *name;
	const char *args; /* "CATS (e.g. ...)", or "" */
	const char *what;
	void (*run)(const struct trace_verb *verb, int argc, char **argv);
};

/* Says why a request failed (one line); true if it did. */
bool trace_failed(long err);

/* The filter words after the verb (argv[0]); false, having said why, if they are wrong. */
bool trace_filter_words(int argc, char **argv, struct traced_filter *f);

/* Prints a paged text listing to its end (or a Ctrl-C); returns its entries. */
uint64_t trace_print_listing(struct traced_pager *pager);

/*
 * A verb's "as NAME" (last): checked, copied into name (TRACED_SAVE_NAME_MAX
 * bytes) and taken off *argc; false, having said why, if it is wrong.
 */
bool trace_name_words(const struct trace_verb *verb, int *argc, char **argv, char *name);

/* Says why a request that writes NAME.spoor to the host failed (one line); true if it did. */
bool trace_export_failed(long err, const char *name);

/* `trace save [FILTERS] [as NAME]` (trace_save.c, with the two above). */
void trace_verb_save(const struct trace_verb *verb, int argc, char **argv);

/* `trace record ...`, and the recording's line of `trace status` (trace_record.c). */
void trace_verb_record(const struct trace_verb *verb, int argc, char **argv);
void trace_record_status(void);

/* `trace stats [FILTERS]` and `trace hist MEASURE [KEY=VALUE] [FILTERS]` (trace_stats.c). */
void trace_verb_stats(const struct trace_verb *verb, int argc, char **argv);
void trace_verb_hist(const struct trace_verb *verb, int argc, char **argv);

/* `trace stack on KINDS|CATS|off` and `trace profile [HZ] [CPU|all]|off` (trace_prof.c). */
void trace_verb_stack(const struct trace_verb *verb, int argc, char **argv);
void trace_verb_profile(const struct trace_verb *verb, int argc, char **argv);

/* trace status's lines for the two: "stacks: KINDS|off", "profile: CPUS at HZ Hz|off". */
struct traced_status;
void trace_prof_status(const struct traced_status *st);

/* `trace top [SECONDS]`: the hottest kernel functions of the profiler's samples (trace_top.c). */
void trace_verb_top(const struct trace_verb *verb, int argc, char **argv);

#endif
