/*
 * verb: what every `trace` verb is and what each of them uses: its usage
 * line, the words for a failed request to traced, the filter words, and
 * the look for a Ctrl-C. The verbs are listed in verbs.c; each file here
 * holds one verb or a few close ones, and talks to traced through libc's
 * trace_client.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_VERB_H
#define SPOOR_INIT_SHELL_TRACE_VERB_H

#include <stdbool.h>
#include <stdint.h>
#include <trace_client.h>

#define WHY_MAX	       1400 /* an error from libc's parsers, in one line */
#define CATEGORIES_MAX 128  /* the names of a category mask, in one line */

/*
 * One verb: its name, its arguments and what it does. verbs[] in
 * verbs.c is the one list the dispatch, `trace`'s listing, `help`'s
 * line, the usage errors and the unknown-verb error are made from.
 */
struct verb {
	const char *name;
	const char *args; /* "CATS (e.g. ...)", or "" */
	const char *what;
	void (*run)(const struct verb *verb, int argc, char **argv);
};

/* Says the verb's usage: "trace: usage: trace mode overwrite|drop". */
void verb_usage(const struct verb *verb);

/* Says why a request to traced failed (one line); true if it did. */
bool verb_failed(long err);

/*
 * The filter words after the verb (argv[0]) into *f, and with pred (not
 * NULL) `if PREDICATE` after them into *pred; false, having said why, if
 * they are wrong.
 */
bool verb_filters(int argc, char **argv, struct traced_filter *f, struct traced_pred *pred);

/* Whether a Ctrl-C was typed since the last look, waiting up to timeout_ns for one. */
bool verb_interrupted(uint64_t timeout_ns);

#endif
