/*
 * trace_filter: the FILTERS words people type to choose events
 * (`cpu=1 pid=3 kind=mem_pf,mem_cow last=20`), parsed and matched by one
 * piece of code for the shell and the programs (through libc's
 * trace_client.h), for traced (which matches what the shell sent) and for
 * spoor-trace on the host. The keys are one table in trace_filter.c from
 * which the parser, the usage line and the errors are made; every error
 * names the word that is wrong and what would be right, in one line.
 *
 * comm=NAME chooses events by their program's name as the dump prints it.
 * Only a reader that holds the names decides it (spoor-trace): traced's
 * protocol (struct traced_filter) has no room for it, so a caller that
 * sends its filter to traced leaves TTRACE_FILTER_COMM out of accept and
 * comm= is refused in one line.
 *
 * `if PREDICATE` after the words (`kind=syscall_exit if result < 0`)
 * chooses events by a predicate over their fields, in the language of
 * `trace on ... if` (common/trace_pred_parse.h): every word after `if`
 * is the predicate's, joined by spaces. Which kinds it applies to, and
 * how the readers run it, is common/trace_filter_pred.h. A caller that
 * cannot carry it to its reader leaves TTRACE_FILTER_PRED out of accept,
 * and `if` is refused as any word that is no filter.
 */
#ifndef SPOOR_COMMON_TRACE_FILTER_H
#define SPOOR_COMMON_TRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace_pred.h"
#include "abi/traced.h"
#include "common/trace_ring.h"

/* The longest comm= a filter holds: a program name as the aux ring keeps it. */
#define TTRACE_FILTER_COMM_MAX 64

/*
 * Keys a caller may leave out of what it accepts. A reader of a stream
 * that has no end yet (spoor-trace follow of a growing recording) decides
 * each event as it comes, so it leaves out the keys that need the whole
 * window: tree= (who spawned whom, which a later record may tell), last=
 * and count= (positions in the window), since= and until= (a loss stays by
 * the time of its CPU's next event, abi/trace_file.h LOSS PLACEMENT, which
 * may not have arrived).
 */
#define TTRACE_FILTER_COMM  0x1u /* comm=NAME (a reader that knows the names) */
#define TTRACE_FILTER_WHOLE 0x2u /* tree= last= count= since= until= (a whole window) */
#define TTRACE_FILTER_PRED  0x4u /* if PREDICATE (a reader that runs it) */
#define TTRACE_FILTER_IF    "if" /* the word before a predicate */
#define TTRACE_FILTER_GUEST TTRACE_FILTER_WHOLE /* what traced decides: every key but comm= */
#define TTRACE_FILTER_HOST                                                                         \
	(TTRACE_FILTER_COMM | TTRACE_FILTER_WHOLE | TTRACE_FILTER_PRED) /* a saved file */
#define TTRACE_FILTER_STREAM TTRACE_FILTER_COMM /* a recording as it grows */

struct ttrace_filter {
	struct traced_filter f; /* what traced decides */
	bool has_comm;
	char comm[TTRACE_FILTER_COMM_MAX + 1];
	char pred[TTRACE_PRED_TEXT_MAX + 1]; /* the words after `if`; "": none */
};

/*
 * Parses the filter words argv[0..argc) for an area of ncpus CPUs into
 * *f, taking the optional keys in accept (TTRACE_FILTER_*). Returns 0, or
 * -EINVAL with one line in why (NUL-terminated, no newline) naming the
 * word that is wrong and what is allowed. Words that contradict each
 * other (last= with count=, pid= with tree=, a kind= outside the cat=,
 * since= not before until=, a single key twice with two values) are
 * refused, not resolved by their order. A predicate that does not
 * compile for the kinds the words select is refused as `trace on ... if`
 * refuses it: "bad filter: at 1: unknown field 'rsult'".
 */
int ttrace_filter_parse(int argc, char *const argv[], uint32_t ncpus, uint32_t accept,
			struct ttrace_filter *f, char *why, size_t why_size);

/*
 * The filter words with their values ("cpu=N pid=N ..."), and "[if
 * PREDICATE]" when accept takes it, NUL-terminated, cut to size.
 */
void ttrace_filter_usage(char *buf, size_t size, uint32_t accept);

/*
 * The words that choose what f and the predicate pred (NULL or "":
 * none) choose, as ttrace_filter_parse() takes them back ("cpu=1
 * kind=syscall_exit if result < 0"; times with nine decimals), from the
 * keys' one table; "" for a filter of nothing. NUL-terminated, cut to
 * size.
 */
void ttrace_filter_words(const struct traced_filter *f, const char *pred, char *buf, size_t size);

/*
 * A category list (mem,sched or all) into *mask. Returns 0, or -EINVAL
 * with one line in why naming the unknown category and the known ones.
 */
int ttrace_filter_categories(const char *list, uint64_t *mask, char *why, size_t why_size);

/*
 * Whether r passes f's cat=, kind=, cpu=, pid=, tid= and tree=: in_tree
 * says whether r's pid is the tree's (read only with TRACED_F_TREE). The
 * time window is ttrace_filter_in_window()'s, count= and last= the
 * caller's, as only it knows what it has passed over.
 */
bool ttrace_filter_match(const struct traced_filter *f, const struct ttrace_record *r,
			 bool in_tree);

/* Whether f's cpu= leaves cpu in (its losses show, as its events may). */
bool ttrace_filter_cpu(const struct traced_filter *f, uint32_t cpu);

/* Whether ns (since boot) is in f's since= and until= window. */
bool ttrace_filter_in_window(const struct traced_filter *f, uint64_t ns);

#endif
