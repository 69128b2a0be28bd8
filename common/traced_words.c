/*
 * traced_words: the words of `trace hist MEASURE [KEY=VALUE]` (see
 * traced_words.h), every error in one line naming what is accepted.
 * Pure code, as common/ is: the compiler's builtins for the string
 * functions every side has, format_snprintf() for the messages.
 */
#include "common/traced_words.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "abi/syscall.h"
#include "abi/trace.h"
#include "common/format.h"

#define KNOWN_MAX 512

static const char *const measures[TRACED_MEASURE_LIMIT][2] = {
#define MEASURE(value, NAME, name, key) [value] = {#name, #key},
    TRACED_MEASURES(MEASURE)
#undef MEASURE
};

static const char *const outcomes[TTRACE_PF_LIMIT] = {
#define OUTCOME(value, NAME, name) [value] = #name,
    TTRACE_PF_OUTCOMES(OUTCOME)
#undef OUTCOME
};

static const char *const paths[TRACED_PATH_LIMIT] = {
#define PATH(value, NAME, name) [value] = #name,
    TRACED_PATHS(PATH)
#undef PATH
};

static const char *const syscalls[SYS_COUNT] = {
#define SYSCALL(nr, name, nargs) [nr] = #name,
#include "abi/syscalls.def"
#undef SYSCALL
};

/* names[i], or "?" for an index outside the list or a hole in it. */
static const char *name_at(const char *const *names, uint32_t n, uint64_t i)
{
	return i < n && names[i] ? names[i] : "?";
}

const char *traced_measure_name(uint32_t measure)
{
	return measure < TRACED_MEASURE_LIMIT && measures[measure][0] ? measures[measure][0] : "?";
}

const char *traced_measure_key(uint32_t measure)
{
	return measure < TRACED_MEASURE_LIMIT && measures[measure][1] ? measures[measure][1] : "?";
}

const char *traced_path_name(uint32_t path)
{
	return name_at(paths, TRACED_PATH_LIMIT, path);
}

const char *traced_outcome_name(uint64_t outcome)
{
	return name_at(outcomes, TTRACE_PF_LIMIT, outcome);
}

/* The index of word in names[0..n), or -1; "known: a b c" into why when absent. */
static int lookup_word(const char *word, const char *const *names, uint32_t n, uint32_t first,
		       const char *what, char *why, size_t size)
{
	char known[KNOWN_MAX];
	size_t len = 0;

	for (uint32_t i = first; i < n; i++) {
		if (names[i] && !__builtin_strcmp(word, names[i])) {
			return (int)i;
		}
	}
	known[0] = '\0';
	for (uint32_t i = first; i < n && len < sizeof(known); i++) {
		if (names[i]) {
			len += (size_t)format_snprintf(known + len, sizeof(known) - len, "%s%s",
						       len ? " " : "", names[i]);
		}
	}
	format_snprintf(why, size, "unknown %s '%s' (known: %s)", what, word, known);
	return -1;
}

/* A decimal number, all of s, without overflow. */
static bool number(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (!*s) {
		return false;
	}
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || __builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, (uint64_t)(*s - '0'), &n)) {
			return false;
		}
	}
	*v = n;
	return true;
}

/* The first c in s, or NULL. */
static const char *find(const char *s, char c)
{
	while (*s && *s != c) {
		s++;
	}
	return *s ? s : NULL;
}

/* The value of the measure's key (syscall name, endpoint, outcome, cpu) into r->key. */
static int key_value(struct traced_stats_request *r, const char *v, char *why, size_t size)
{
	int i;

	switch (r->measure) {
	case TRACED_MEASURE_SYSCALL:
		i = lookup_word(v, syscalls, SYS_COUNT, 0, "syscall", why, size);
		break;
	case TRACED_MEASURE_PF:
		i = lookup_word(v, outcomes, TTRACE_PF_LIMIT, 0, "outcome", why, size);
		break;
	default:
		if (!number(v, &r->key)) {
			format_snprintf(why, size, "bad %s '%s' (a number)",
					measures[r->measure][1], v);
			return -EINVAL;
		}
		return 0;
	}
	if (i < 0) {
		return -EINVAL;
	}
	r->key = (uint64_t)i;
	return 0;
}

/* The measures a histogram is of, each with its key (and ipc's path), into why. */
static void no_measure(char *why, size_t size)
{
	size_t len = (size_t)format_snprintf(why, size, "hist needs a measure:");

	for (uint32_t m = 1; m < TRACED_MEASURE_LIMIT && len < size; m++) {
		len += (size_t)format_snprintf(why + len, size - len, "%s %s [%s=...]%s",
					       m > 1 ? "," : "", measures[m][0], measures[m][1],
					       m == TRACED_MEASURE_IPC ? " [path=fast|slow]" : "");
	}
}

int traced_hist_parse(int argc, char *const argv[], struct traced_stats_request *r, char *why,
		      size_t why_size)
{
	int used = 1;

	__builtin_memset(r, 0, sizeof(*r));
	const char *names[TRACED_MEASURE_LIMIT];
	for (uint32_t m = 0; m < TRACED_MEASURE_LIMIT; m++) {
		names[m] = measures[m][0];
	}
	if (argc < 1) {
		no_measure(why, why_size);
		return -EINVAL;
	}
	int m = lookup_word(argv[0], names, TRACED_MEASURE_LIMIT, 1, "measure", why, why_size);
	if (m < 0) {
		return -EINVAL;
	}
	r->form = TRACED_STATS_HIST;
	r->measure = (uint32_t)m;
	r->key = TRACED_STATS_ANY;
	/* The measure's own key words come first; what follows them are filters. */
	for (; used < argc; used++) {
		const char *eq = find(argv[used], '=');
		size_t len = eq ? (size_t)(eq - argv[used]) : 0;
		const char *key = measures[m][1];
		if (eq && len == __builtin_strlen(key) &&
		    !__builtin_strncmp(argv[used], key, len)) {
			if (key_value(r, eq + 1, why, why_size)) {
				return -EINVAL;
			}
		} else if (eq && m == TRACED_MEASURE_IPC && len == 4 &&
			   !__builtin_strncmp(argv[used], "path", 4)) {
			int p =
			    lookup_word(eq + 1, paths, TRACED_PATH_LIMIT, 0, "path", why, why_size);
			if (p < 0) {
				return -EINVAL;
			}
			r->path = (uint32_t)p;
		} else {
			break;
		}
	}
	return used;
}
