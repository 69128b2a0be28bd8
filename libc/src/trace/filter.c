/*
 * filter: the words people type to choose events (trace_client.h), turned
 * into a struct traced_filter. The keys are one table (keys[] below) from
 * which the parser, the usage line and the errors are made. Every error
 * names the word that is wrong and what would be right, in one line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "common/trace_names.h"

#define NS_PER_S      1000000000ull
#define SECONDS_MAX   1000000000ull /* ~31 years: keeps seconds * 10^9 within 64 bits */
#define NS_DIGITS_MAX 9
#define KNOWN_MAX     160 /* the keys with their values, in one line */

static int fail(char *why, size_t size, const char *fmt, const char *word, size_t len)
{
	snprintf(why, size, fmt, (int)len, word);
	return -EINVAL;
}

int traced_categories_parse(const char *list, uint64_t *mask, char *why, size_t why_size)
{
	const char *bad;
	size_t bad_len;
	char known[128];
	size_t n = 0;

	if (!ttrace_category_parse(list, mask, &bad, &bad_len)) {
		return 0;
	}
	for (uint32_t bit = 0; ttrace_category_name(bit); bit++) {
		n += (size_t)snprintf(known + n, sizeof(known) - n, "%s ",
				      ttrace_category_name(bit));
	}
	snprintf(why, why_size, "unknown category '%.*s' (known: %sall)", (int)bad_len, bad, known);
	return -EINVAL;
}

/* A decimal number, all of s. */
static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9') {
		return false;
	}
	*v = strtoull(s, &end, 10);
	return !*end;
}

/* Seconds with up to nine decimals ("1.5") as ns. */
static bool seconds(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	char whole[24];
	uint64_t sec, frac = 0;
	size_t len = dot ? (size_t)(dot - s) : strlen(s);

	if (!len || len >= sizeof(whole)) {
		return false;
	}
	memcpy(whole, s, len);
	whole[len] = '\0';
	if (!number(whole, &sec) || sec >= SECONDS_MAX) {
		return false;
	}
	if (dot) {
		size_t digits = strlen(dot + 1);
		if (!digits || digits > NS_DIGITS_MAX || !number(dot + 1, &frac)) {
			return false;
		}
		for (size_t i = digits; i < NS_DIGITS_MAX; i++) {
			frac *= 10;
		}
	}
	*ns = sec * NS_PER_S + frac;
	return true;
}

static int kinds_parse(const char *list, uint64_t *kinds, char *why, size_t size)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		uint32_t k = 0;
		while (k < TRACED_KIND_WORDS * 64 &&
		       !(ttrace_kind_info(k) && strlen(ttrace_kind_info(k)->name) == len &&
			 !strncmp(ttrace_kind_info(k)->name, p, len))) {
			k++;
		}
		if (k == TRACED_KIND_WORDS * 64) {
			char known[1024];
			size_t n = 0;
			for (uint32_t i = 0; i < TTRACE_KIND_LIMIT; i++) {
				if (ttrace_kind_info(i)) {
					n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s",
							      n ? " " : "",
							      ttrace_kind_info(i)->name);
				}
			}
			snprintf(why, size, "unknown kind '%.*s' (known: %s)", (int)len, p, known);
			return -EINVAL;
		}
		kinds[k / 64] |= 1ull << (k % 64);
		p += len;
		p += *p == ',';
	}
	return 0;
}

/* One filter key: its name, the form of its value, and how the value goes into *f. */
struct filter_key {
	const char *name;
	const char *value; /* for the usage line: "N", "NAME,..." */
	int (*parse)(const struct filter_key *k, const char *word, const char *value,
		     uint32_t ncpus, struct traced_filter *f, char *why, size_t size);
	uint32_t flag; /* TRACED_F_* */
	bool many;     /* a set: given again, the values add up (cpu=1 cpu=3) */
};

static int key_cpu(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		   struct traced_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)w;
	if (!number(v, &n) || n >= ncpus) {
		snprintf(why, size, "bad cpu '%s' (cpus: 0 to %u)", v, ncpus - 1);
		return -EINVAL;
	}
	f->flags |= k->flag;
	f->cpus |= 1u << n;
	return 0;
}

static int key_id(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		  struct traced_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)ncpus;
	if (!number(v, &n) || n > UINT32_MAX) {
		return fail(why, size, "bad id in '%.*s' (a number)", w, strlen(w));
	}
	f->flags |= k->flag;
	*(k->flag == TRACED_F_TID ? &f->tid : &f->pid) = (uint32_t)n;
	return 0;
}

static int key_kind(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		    struct traced_filter *f, char *why, size_t size)
{
	(void)w;
	(void)ncpus;
	if (kinds_parse(v, f->kinds, why, size)) {
		return -EINVAL;
	}
	f->flags |= k->flag;
	return 0;
}

static int key_cat(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		   struct traced_filter *f, char *why, size_t size)
{
	uint64_t mask;

	(void)w;
	(void)ncpus;
	if (traced_categories_parse(v, &mask, why, size)) {
		return -EINVAL;
	}
	f->flags |= k->flag;
	f->cats |= mask;
	return 0;
}

static int key_count(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		     struct traced_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)ncpus;
	if (!number(v, &n) || !n) {
		return fail(why, size, "bad count in '%.*s' (a number above 0)", w, strlen(w));
	}
	f->flags |= k->flag;
	f->count = n;
	return 0;
}

static int key_time(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		    struct traced_filter *f, char *why, size_t size)
{
	uint64_t ns;

	(void)ncpus;
	if (!seconds(v, &ns)) {
		return fail(why, size, "bad time in '%.*s' (seconds since boot, such as 1.5)", w,
			    strlen(w));
	}
	f->flags |= k->flag;
	*(k->flag == TRACED_F_SINCE ? &f->since_ns : &f->until_ns) = ns;
	return 0;
}

/* The filter words: the one list the parser, the usage line and the errors come from. */
static const struct filter_key keys[] = {
    {"cpu", "N", key_cpu, TRACED_F_CPUS, true},
    {"pid", "N", key_id, TRACED_F_PID, false},
    {"tid", "N", key_id, TRACED_F_TID, false},
    {"tree", "N", key_id, TRACED_F_PID | TRACED_F_TREE, false},
    {"kind", "NAME,...", key_kind, TRACED_F_KINDS, true},
    {"cat", "NAME,...", key_cat, TRACED_F_CATS, true},
    {"last", "N", key_count, TRACED_F_LAST, false},
    {"count", "N", key_count, TRACED_F_COUNT, false},
    {"since", "SECONDS", key_time, TRACED_F_SINCE, false},
    {"until", "SECONDS", key_time, TRACED_F_UNTIL, false},
};

#define NUM_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The keys as "cpu=N pid=N ..." (with values) or "cpu= pid= ..." (without). */
static void keys_format(char *buf, size_t size, bool values)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NUM_KEYS && n < size; i++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", i ? " " : "", keys[i].name,
				      values ? keys[i].value : "");
	}
}

void traced_filter_usage(char *buf, size_t size)
{
	keys_format(buf, size, true);
}

/* The first kind of f's kind= that no category of its cat= has, or -1. */
static int kind_outside(const struct traced_filter *f)
{
	for (uint32_t k = 0; k < TRACED_KIND_WORDS * 64; k++) {
		if (f->kinds[k / 64] >> (k % 64) & 1 &&
		    !(ttrace_kind_info(k)->category & f->cats)) {
			return (int)k;
		}
	}
	return -1;
}

/* The word that gave key name, or NULL. */
static const char *given(const char *const word[NUM_KEYS], const char *name)
{
	for (size_t i = 0; i < NUM_KEYS; i++) {
		if (!strcmp(keys[i].name, name)) {
			return word[i];
		}
	}
	return NULL;
}

/*
 * Pairs of words that no event can satisfy together, or whose meaning
 * would depend on their order, refused as traced refuses them
 * (servers/traced/dump.c): a key that is not a set given once (or again
 * with the same value), last= or count=, pid= or tree=, every kind= in the cat=, since=
 * before until=. word[i] is the word that gave keys[i], or NULL.
 */
static int contradictions(const struct traced_filter *f, const char *const word[NUM_KEYS],
			  char *why, size_t size)
{
	static const char *const pairs[][3] = {
	    {"last", "count", "last=N is the newest N events, count=N the oldest N"},
	    {"pid", "tree", "tree=N is process N and what it spawned: give one of them"},
	};
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		const char *a = given(word, pairs[p][0]), *b = given(word, pairs[p][1]);
		if (a && b) {
			snprintf(why, size, "%s and %s cannot both hold (%s)", a, b, pairs[p][2]);
			return -EINVAL;
		}
	}
	int k = f->flags & TRACED_F_CATS && f->flags & TRACED_F_KINDS ? kind_outside(f) : -1;
	if (k >= 0) {
		snprintf(why, size, "kind %s is not in cat=%s: no event can pass both",
			 ttrace_kind_info((uint32_t)k)->name, strchr(given(word, "cat"), '=') + 1);
		return -EINVAL;
	}
	if (f->flags & TRACED_F_SINCE && f->flags & TRACED_F_UNTIL && f->since_ns >= f->until_ns) {
		snprintf(why, size, "%s is not before %s: no event can be in that window",
			 given(word, "since"), given(word, "until"));
		return -EINVAL;
	}
	return 0;
}

int traced_filter_parse(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			char *why, size_t why_size)
{
	char known[KNOWN_MAX];
	const char *word[NUM_KEYS] = {0};

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		const char *eq = strchr(w, '=');
		size_t len = eq ? (size_t)(eq - w) : strlen(w);
		const struct filter_key *k = keys;

		if (!eq || !eq[1]) {
			keys_format(known, sizeof(known), true);
			snprintf(why, why_size, "bad filter '%s' (known: %s)", w, known);
			return -EINVAL;
		}
		while (k < keys + NUM_KEYS &&
		       !(strlen(k->name) == len && !strncmp(w, k->name, len))) {
			k++;
		}
		if (k == keys + NUM_KEYS) {
			keys_format(known, sizeof(known), false);
			snprintf(why, why_size, "unknown filter '%.*s' (known: %s)", (int)len, w,
				 known);
			return -EINVAL;
		}
		const char **seen = &word[k - keys];
		if (*seen && !k->many && strcmp(*seen, w)) {
			snprintf(why, why_size, "%s and %s cannot both hold (give %s= once)", *seen,
				 w, k->name);
			return -EINVAL;
		}
		*seen = w;
		if (k->parse(k, w, eq + 1, ncpus, f, why, why_size)) {
			return -EINVAL;
		}
	}
	return contradictions(f, word, why, why_size);
}
