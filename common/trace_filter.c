/*
 * trace_filter: the FILTERS words (see trace_filter.h). Pure code, as
 * common/ is compiled by the kernel, libc and the host: no libc, the
 * compiler's builtins for the string functions every side has, and
 * format_snprintf() for the messages.
 */
#include "common/trace_filter.h"

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_filter_pred.h"
#include "common/trace_names.h"
#include "common/trace_pred_parse.h"

#define NS_PER_S      1000000000ull
#define SECONDS_MAX   1000000000ull /* ~31 years: keeps seconds * 10^9 within 64 bits */
#define NS_DIGITS_MAX 9
#define KNOWN_MAX     192  /* the keys with their values, in one line */
#define KINDS_TEXT    1024 /* every kind's name, in one line */
#define KINDS_MAX     (TRACED_KIND_WORDS * 64)

static size_t len_of(const char *s)
{
	return __builtin_strlen(s);
}

static const char *find(const char *s, char c)
{
	while (*s && *s != c) {
		s++;
	}
	return *s ? s : NULL;
}

static int fail(char *why, size_t size, const char *fmt, const char *word)
{
	format_snprintf(why, size, fmt, word);
	return -EINVAL;
}

int ttrace_filter_categories(const char *list, uint64_t *mask, char *why, size_t why_size)
{
	const char *bad;
	size_t bad_len;
	char known[128];
	size_t n = 0;

	if (!ttrace_category_parse(list, mask, &bad, &bad_len)) {
		return 0;
	}
	for (uint32_t bit = 0; ttrace_category_name(bit) && n < sizeof(known); bit++) {
		n += (size_t)format_snprintf(known + n, sizeof(known) - n, "%s ",
					     ttrace_category_name(bit));
	}
	format_snprintf(why, why_size, "unknown category '%.*s' (known: %sall)", (int)bad_len, bad,
			known);
	return -EINVAL;
}

/* A decimal number of up to len characters of s, all of them digits, without overflow. */
static bool number_n(const char *s, size_t len, uint64_t *v)
{
	uint64_t n = 0;

	if (!len) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || __builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, (uint64_t)(s[i] - '0'), &n)) {
			return false;
		}
	}
	*v = n;
	return true;
}

static bool number(const char *s, uint64_t *v)
{
	return number_n(s, len_of(s), v);
}

/* Seconds with up to nine decimals ("1.5") as ns. */
static bool seconds(const char *s, uint64_t *ns)
{
	const char *dot = find(s, '.');
	uint64_t sec, frac = 0;
	size_t len = dot ? (size_t)(dot - s) : len_of(s);

	if (!number_n(s, len, &sec) || sec >= SECONDS_MAX) {
		return false;
	}
	if (dot) {
		size_t digits = len_of(dot + 1);
		if (digits > NS_DIGITS_MAX || !number_n(dot + 1, digits, &frac)) {
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
		size_t len = 0;
		while (p[len] && p[len] != ',') {
			len++;
		}
		uint32_t k = 0;
		while (k < KINDS_MAX &&
		       !(ttrace_kind_info(k) && len_of(ttrace_kind_info(k)->name) == len &&
			 !__builtin_strncmp(ttrace_kind_info(k)->name, p, len))) {
			k++;
		}
		if (k == KINDS_MAX) {
			char known[KINDS_TEXT];
			size_t n = 0;
			for (uint32_t i = 0; i < TTRACE_KIND_LIMIT && n < sizeof(known); i++) {
				if (ttrace_kind_info(i)) {
					n += (size_t)format_snprintf(known + n, sizeof(known) - n,
								     "%s%s", n ? " " : "",
								     ttrace_kind_info(i)->name);
				}
			}
			format_snprintf(why, size, "unknown kind '%.*s' (known: %s)", (int)len, p,
					known);
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
		     uint32_t ncpus, struct ttrace_filter *f, char *why, size_t size);
	uint32_t flag;	/* TRACED_F_* */
	bool many;	/* a set: given again, the values add up (cpu=1 cpu=3) */
	uint32_t needs; /* TTRACE_FILTER_*: the callers that take it; 0: every caller */
};

static int key_cpu(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		   struct ttrace_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)w;
	if (!number(v, &n) || n >= ncpus) {
		format_snprintf(why, size, "bad cpu '%s' (cpus: 0 to %u)", v, ncpus - 1);
		return -EINVAL;
	}
	f->f.flags |= k->flag;
	f->f.cpus |= 1u << n;
	return 0;
}

static int key_id(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		  struct ttrace_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)ncpus;
	if (!number(v, &n) || n > UINT32_MAX) {
		return fail(why, size, "bad id in '%s' (a number)", w);
	}
	f->f.flags |= k->flag;
	*(k->flag == TRACED_F_TID ? &f->f.tid : &f->f.pid) = (uint32_t)n;
	return 0;
}

static int key_kind(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		    struct ttrace_filter *f, char *why, size_t size)
{
	(void)w;
	(void)ncpus;
	if (kinds_parse(v, f->f.kinds, why, size)) {
		return -EINVAL;
	}
	f->f.flags |= k->flag;
	return 0;
}

static int key_cat(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		   struct ttrace_filter *f, char *why, size_t size)
{
	uint64_t mask;

	(void)w;
	(void)ncpus;
	if (ttrace_filter_categories(v, &mask, why, size)) {
		return -EINVAL;
	}
	f->f.flags |= k->flag;
	f->f.cats |= mask;
	return 0;
}

static int key_count(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		     struct ttrace_filter *f, char *why, size_t size)
{
	uint64_t n;

	(void)ncpus;
	if (!number(v, &n) || !n) {
		return fail(why, size, "bad count in '%s' (a number above 0)", w);
	}
	f->f.flags |= k->flag;
	f->f.count = n;
	return 0;
}

static int key_time(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		    struct ttrace_filter *f, char *why, size_t size)
{
	uint64_t ns;

	(void)ncpus;
	if (!seconds(v, &ns)) {
		return fail(why, size, "bad time in '%s' (seconds since boot, such as 1.5)", w);
	}
	f->f.flags |= k->flag;
	*(k->flag == TRACED_F_SINCE ? &f->f.since_ns : &f->f.until_ns) = ns;
	return 0;
}

static int key_comm(const struct filter_key *k, const char *w, const char *v, uint32_t ncpus,
		    struct ttrace_filter *f, char *why, size_t size)
{
	size_t len = len_of(v);

	(void)k;
	(void)ncpus;
	if (len > TTRACE_FILTER_COMM_MAX) {
		return fail(why, size, "bad name in '%s' (at most 64 characters)", w);
	}
	__builtin_memcpy(f->comm, v, len + 1);
	f->has_comm = true;
	return 0;
}

/* The filter words: the one list the parser, the usage line and the errors come from. */
static const struct filter_key keys[] = {
    {"cpu", "N", key_cpu, TRACED_F_CPUS, true, 0},
    {"pid", "N", key_id, TRACED_F_PID, false, 0},
    {"tid", "N", key_id, TRACED_F_TID, false, 0},
    {"tree", "N", key_id, TRACED_F_PID | TRACED_F_TREE, false, TTRACE_FILTER_WHOLE},
    {"comm", "NAME", key_comm, 0, false, TTRACE_FILTER_COMM},
    {"kind", "NAME,...", key_kind, TRACED_F_KINDS, true, 0},
    {"cat", "NAME,...", key_cat, TRACED_F_CATS, true, 0},
    {"last", "N", key_count, TRACED_F_LAST, false, TTRACE_FILTER_WHOLE},
    {"count", "N", key_count, TRACED_F_COUNT, false, TTRACE_FILTER_WHOLE},
    {"since", "SECONDS", key_time, TRACED_F_SINCE, false, TTRACE_FILTER_WHOLE},
    {"until", "SECONDS", key_time, TRACED_F_UNTIL, false, TTRACE_FILTER_WHOLE},
};

#define NUM_KEYS (sizeof(keys) / sizeof(keys[0]))

static bool taken(const struct filter_key *k, uint32_t accept)
{
	return !k->needs || (k->needs & accept);
}

/* The keys accepted as "cpu=N pid=N ..." (with values) or "cpu= pid= ..." (without). */
static void keys_format(char *buf, size_t size, uint32_t accept, bool values)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NUM_KEYS && n < size; i++) {
		if (taken(&keys[i], accept)) {
			n += (size_t)format_snprintf(buf + n, size - n, "%s%s=%s", n ? " " : "",
						     keys[i].name, values ? keys[i].value : "");
		}
	}
}

void ttrace_filter_usage(char *buf, size_t size, uint32_t accept)
{
	keys_format(buf, size, accept, true);
	if (accept & TTRACE_FILTER_PRED) {
		size_t n = len_of(buf);
		format_snprintf(buf + n, size - n, " [" TTRACE_FILTER_IF " PREDICATE]");
	}
}

/* Whether key k is one of f's words: its flags set (pid= only without tree=). */
static bool key_in(const struct filter_key *k, const struct traced_filter *f)
{
	return k->flag && (f->flags & k->flag) == k->flag &&
	       !(k->flag == TRACED_F_PID && f->flags & TRACED_F_TREE);
}

/* Key k's words for f ("cpu=0 cpu=2", "kind=mem_pf,mem_cow"), appended at buf[n]. */
static size_t key_words(const struct filter_key *k, const struct traced_filter *f, char *buf,
			size_t size, size_t n)
{
	const char *sep = n ? " " : "";

	switch (k->flag) {
	case TRACED_F_CPUS:
		for (uint32_t c = 0; c < 32 && n < size; c++) {
			if (f->cpus >> c & 1) {
				n += (size_t)format_snprintf(buf + n, size - n, "%s%s=%u",
							     n ? " " : "", k->name, c);
			}
		}
		return n;
	case TRACED_F_KINDS:
	case TRACED_F_CATS:
		n += (size_t)format_snprintf(buf + n, size - n, "%s%s=", sep, k->name);
		sep = "";
		for (uint32_t b = 0; b < KINDS_MAX && n < size; b++) {
			const struct ttrace_kind_info *info = ttrace_kind_info(b);
			const char *name = k->flag == TRACED_F_CATS ? ttrace_category_name(b)
					   : info		    ? info->name
								    : NULL;
			bool in = k->flag == TRACED_F_CATS ? b < 64 && f->cats >> b & 1
							   : f->kinds[b / 64] >> (b % 64) & 1;
			if (in) {
				/* a bit no name has stays visible: the words then say so */
				n += name ? (size_t)format_snprintf(buf + n, size - n, "%s%s", sep,
								    name)
					  : (size_t)format_snprintf(buf + n, size - n, "%s#%u", sep,
								    b);
				sep = ",";
			}
		}
		return n;
	case TRACED_F_SINCE:
	case TRACED_F_UNTIL: {
		uint64_t ns = k->flag == TRACED_F_SINCE ? f->since_ns : f->until_ns;
		return n + (size_t)format_snprintf(buf + n, size - n, "%s%s=%llu.%09llu", sep,
						   k->name, (unsigned long long)(ns / NS_PER_S),
						   (unsigned long long)(ns % NS_PER_S));
	}
	default: {
		uint64_t v = k->flag == TRACED_F_TID			  ? f->tid
			     : k->flag & (TRACED_F_LAST | TRACED_F_COUNT) ? f->count
									  : f->pid;
		return n + (size_t)format_snprintf(buf + n, size - n, "%s%s=%llu", sep, k->name,
						   (unsigned long long)v);
	}
	}
}

void ttrace_filter_words(const struct traced_filter *f, const char *pred, char *buf, size_t size)
{
	size_t n = 0;

	if (!size) {
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < NUM_KEYS && n < size; i++) {
		if (key_in(&keys[i], f)) {
			n = key_words(&keys[i], f, buf, size, n);
		}
	}
	if (pred && pred[0] && n < size) {
		format_snprintf(buf + n, size - n, "%s" TTRACE_FILTER_IF " %s", n ? " " : "", pred);
	}
}

/* The first kind of f's kind= that no category of its cat= has, or -1. */
static int kind_outside(const struct traced_filter *f)
{
	for (uint32_t k = 0; k < KINDS_MAX; k++) {
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
		if (!__builtin_strcmp(keys[i].name, name)) {
			return word[i];
		}
	}
	return NULL;
}

/*
 * Pairs of words that no event can satisfy together, or whose meaning
 * would depend on their order, refused as traced refuses them
 * (servers/traced/dump.c): last= or count=, pid= or tree=, every kind= in
 * the cat=, since= before until=. word[i] is the word that gave keys[i],
 * or NULL.
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
			format_snprintf(why, size, "%s and %s cannot both hold (%s)", a, b,
					pairs[p][2]);
			return -EINVAL;
		}
	}
	int k = f->flags & TRACED_F_CATS && f->flags & TRACED_F_KINDS ? kind_outside(f) : -1;
	if (k >= 0) {
		format_snprintf(why, size, "kind %s is not in cat=%s: no event can pass both",
				ttrace_kind_info((uint32_t)k)->name,
				find(given(word, "cat"), '=') + 1);
		return -EINVAL;
	}
	if (f->flags & TRACED_F_SINCE && f->flags & TRACED_F_UNTIL && f->since_ns >= f->until_ns) {
		format_snprintf(why, size, "%s is not before %s: no event can be in that window",
				given(word, "since"), given(word, "until"));
		return -EINVAL;
	}
	return 0;
}

int ttrace_filter_parse(int argc, char *const argv[], uint32_t ncpus, uint32_t accept,
			struct ttrace_filter *f, char *why, size_t why_size)
{
	char known[KNOWN_MAX];
	char said[TTRACE_PRED_WHY_MAX];
	const char *word[NUM_KEYS] = {0};
	int nwords = 0;

	__builtin_memset(f, 0, sizeof(*f));
	while (nwords < argc && !(accept & TTRACE_FILTER_PRED &&
				  !__builtin_strcmp(argv[nwords], TTRACE_FILTER_IF))) {
		nwords++;
	}
	if (nwords < argc && ttrace_pred_join(argc - nwords - 1, argv + nwords + 1, f->pred,
					      sizeof(f->pred), said, sizeof(said))) {
		format_snprintf(why, why_size, "bad filter: %s", said);
		return -EINVAL;
	}
	for (int i = 0; i < nwords; i++) {
		const char *w = argv[i];
		const char *eq = find(w, '=');
		size_t len = eq ? (size_t)(eq - w) : len_of(w);
		const struct filter_key *k = keys;

		if (!eq || !eq[1]) {
			keys_format(known, sizeof(known), accept, true);
			format_snprintf(why, why_size, "bad filter '%s' (known: %s)", w, known);
			return -EINVAL;
		}
		while (k < keys + NUM_KEYS && !(taken(k, accept) && len_of(k->name) == len &&
						!__builtin_strncmp(w, k->name, len))) {
			k++;
		}
		if (k == keys + NUM_KEYS) {
			keys_format(known, sizeof(known), accept, false);
			format_snprintf(why, why_size, "unknown filter '%.*s' (known: %s)",
					(int)len, w, known);
			return -EINVAL;
		}
		const char **seen = &word[k - keys];
		if (*seen && !k->many && __builtin_strcmp(*seen, w)) {
			format_snprintf(why, why_size, "%s and %s cannot both hold (give %s= once)",
					*seen, w, k->name);
			return -EINVAL;
		}
		*seen = w;
		if (k->parse(k, w, eq + 1, ncpus, f, why, why_size)) {
			return -EINVAL;
		}
	}
	if (contradictions(&f->f, word, why, why_size)) {
		return -EINVAL;
	}
	/* `if` with nothing after it is the parser's "expected a term", with its place */
	return nwords < argc ? ttrace_filter_pred_check(f->pred, &f->f, why, why_size) : 0;
}

bool ttrace_filter_match(const struct traced_filter *f, const struct ttrace_record *r, bool in_tree)
{
	uint32_t fl = f->flags;

	if (fl & TRACED_F_CATS) {
		const struct ttrace_kind_info *k = ttrace_kind_info(r->kind);
		if (!(k && k->category & f->cats)) {
			return false;
		}
	}
	if (fl & TRACED_F_KINDS &&
	    (r->kind >= KINDS_MAX || !(f->kinds[r->kind / 64] >> (r->kind % 64) & 1))) {
		return false;
	}
	return !(!ttrace_filter_cpu(f, r->cpu) ||
		 (fl & TRACED_F_PID && !(fl & TRACED_F_TREE ? in_tree : r->pid == f->pid)) ||
		 (fl & TRACED_F_TID && r->tid != f->tid));
}

bool ttrace_filter_cpu(const struct traced_filter *f, uint32_t cpu)
{
	return !(f->flags & TRACED_F_CPUS) || f->cpus >> cpu & 1;
}

bool ttrace_filter_in_window(const struct traced_filter *f, uint64_t ns)
{
	return !(f->flags & TRACED_F_SINCE && ns < f->since_ns) &&
	       !(f->flags & TRACED_F_UNTIL && ns >= f->until_ns);
}
