/*
 * filter: the words people type to choose events (trace_client.h), turned
 * into a struct traced_filter. Every error names the word that is wrong
 * and what would be right, in one line.
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

int traced_filter_parse(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			char *why, size_t why_size)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		const char *eq = strchr(w, '=');
		const char *v = eq ? eq + 1 : "";
		size_t key = eq ? (size_t)(eq - w) : strlen(w);
		uint64_t n;

#define KEY(name) (key == sizeof(name) - 1 && !strncmp(w, name, key))
		if (!eq || !*v) {
			return fail(why, why_size,
				    "bad filter '%.*s' (known: cpu=N pid=N tid=N kind=NAME,... "
				    "cat=NAME,... last=N count=N since=SECONDS until=SECONDS)",
				    w, strlen(w));
		}
		if (KEY("cpu")) {
			if (!number(v, &n) || n >= ncpus) {
				snprintf(why, why_size, "bad cpu '%s' (cpus: 0 to %u)", v,
					 ncpus - 1);
				return -EINVAL;
			}
			f->flags |= TRACED_F_CPUS;
			f->cpus |= 1u << n;
		} else if (KEY("pid") || KEY("tid")) {
			if (!number(v, &n) || n > UINT32_MAX) {
				return fail(why, why_size, "bad id in '%.*s' (a number)", w,
					    strlen(w));
			}
			f->flags |= KEY("pid") ? TRACED_F_PID : TRACED_F_TID;
			*(KEY("pid") ? &f->pid : &f->tid) = (uint32_t)n;
		} else if (KEY("kind")) {
			if (kinds_parse(v, f->kinds, why, why_size)) {
				return -EINVAL;
			}
			f->flags |= TRACED_F_KINDS;
		} else if (KEY("cat")) {
			uint64_t mask;
			if (traced_categories_parse(v, &mask, why, why_size)) {
				return -EINVAL;
			}
			f->flags |= TRACED_F_CATS;
			f->cats |= mask;
		} else if (KEY("last") || KEY("count")) {
			if (!number(v, &n) || !n) {
				return fail(why, why_size, "bad count in '%.*s' (a number above 0)",
					    w, strlen(w));
			}
			f->flags &= ~(TRACED_F_LAST | TRACED_F_COUNT);
			f->flags |= KEY("last") ? TRACED_F_LAST : TRACED_F_COUNT;
			f->count = n;
		} else if (KEY("since") || KEY("until")) {
			if (!seconds(v, &n)) {
				return fail(why, why_size,
					    "bad time in '%.*s' (seconds since boot, such as 1.5)",
					    w, strlen(w));
			}
			f->flags |= KEY("since") ? TRACED_F_SINCE : TRACED_F_UNTIL;
			*(KEY("since") ? &f->since_ns : &f->until_ns) = n;
		} else {
			return fail(why, why_size,
				    "unknown filter '%.*s' (known: cpu= pid= tid= kind= cat= last= "
				    "count= since= until=)",
				    w, key);
		}
#undef KEY
	}
	if (f->flags & TRACED_F_SINCE && f->flags & TRACED_F_UNTIL && f->since_ns >= f->until_ns) {
		snprintf(why, why_size, "empty time window (since= must be below until=)");
		return -EINVAL;
	}
	return 0;
}
