/*
 * cmdline: split on spaces, find the option by the text before '=', then
 * convert the value by the option's type. Conversion happens into a local
 * first, so a bad value never changes the option.
 */
#include "init/cmdline.h"

#include <stdbool.h>

#include "common/format.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool name_equals(const char *name, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && name[i] == s[i]) {
		i++;
	}
	return i == n && name[i] == '\0';
}

static bool str_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static bool parse_uint(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s) {
		return false;
	}
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9') {
			d = (unsigned)(*s - '0');
		} else if (base == 16 && *s >= 'a' && *s <= 'f') {
			d = (unsigned)(*s - 'a' + 10);
		} else if (base == 16 && *s >= 'A' && *s <= 'F') {
			d = (unsigned)(*s - 'A' + 10);
		} else {
			return false;
		}
		if (v > (UINT64_MAX - d) / base) {
			return false;
		}
		v = v * base + d;
	}
	*out = v;
	return true;
}

static void warn_choices(const struct cmdline_option *o, const char *value, cmdline_warn_fn warn)
{
	char msg[256];
	int n = format_snprintf(msg, sizeof(msg), "cmdline: bad value '%s' for '%s' (expected",
				value, o->name);

	for (const char *const *c = o->choices; *c && n < (int)sizeof(msg); c++) {
		n += format_snprintf(msg + n, sizeof(msg) - (size_t)n, " %s", *c);
	}
	if (n < (int)sizeof(msg)) {
		format_snprintf(msg + n, sizeof(msg) - (size_t)n, "), ignored");
	}
	warn(msg);
}

/* Applies one "name=value" word; returns 1 if it warned, else 0. */
static int apply(const char *word, const struct cmdline_option *opts, size_t nopts,
		 cmdline_warn_fn warn)
{
	char msg[256];
	size_t name_len = 0;

	while (word[name_len] && word[name_len] != '=') {
		name_len++;
	}
	const struct cmdline_option *o = NULL;
	for (size_t i = 0; i < nopts && !o; i++) {
		if (name_equals(opts[i].name, word, name_len)) {
			o = &opts[i];
		}
	}
	if (!o) {
		format_snprintf(msg, sizeof(msg), "cmdline: unknown option '%.*s', ignored",
				(int)name_len, word);
		warn(msg);
		return 1;
	}
	if (word[name_len] != '=' || !word[name_len + 1]) {
		format_snprintf(msg, sizeof(msg), "cmdline: option '%s' needs a value, ignored",
				o->name);
		warn(msg);
		return 1;
	}
	const char *value = word + name_len + 1;

	switch (o->type) {
	case CMDLINE_UINT:
	case CMDLINE_POW2: {
		uint64_t v;
		bool pow2 = o->type == CMDLINE_POW2;
		bool off = pow2 && o->zero_off && parse_uint(value, &v) && !v;
		if (!off && (!parse_uint(value, &v) || v < o->min || v > o->max ||
			     (pow2 && (v & (v - 1))))) {
			format_snprintf(
			    msg, sizeof(msg),
			    "cmdline: bad value '%s' for '%s' (expected %s%s%lu..%lu), ignored",
			    value, o->name, pow2 && o->zero_off ? "0 or " : "",
			    pow2 ? "a power of two in " : "", (unsigned long)o->min,
			    (unsigned long)o->max);
			warn(msg);
			return 1;
		}
		*(uint64_t *)o->value = v;
		return 0;
	}
	case CMDLINE_CHOICE:
		for (uint32_t i = 0; o->choices[i]; i++) {
			if (str_equal(o->choices[i], value)) {
				*(uint32_t *)o->value = i;
				return 0;
			}
		}
		warn_choices(o, value, warn);
		return 1;
	case CMDLINE_STRING: {
		size_t n = 0;
		while (value[n]) {
			n++;
		}
		if (n + 1 > o->size) {
			format_snprintf(msg, sizeof(msg),
					"cmdline: value for '%s' longer than %lu bytes, ignored",
					o->name, (unsigned long)(o->size - 1));
			warn(msg);
			return 1;
		}
		char *dst = o->value;
		for (size_t i = 0; i <= n; i++) {
			dst[i] = value[i];
		}
		return 0;
	}
	}
	return 0;
}

int cmdline_parse(const char *line, const struct cmdline_option *opts, size_t nopts,
		  cmdline_warn_fn warn)
{
	char word[CMDLINE_WORD_MAX];
	int warnings = 0;

	while (*line) {
		while (is_space(*line)) {
			line++;
		}
		size_t n = 0;
		while (line[n] && !is_space(line[n])) {
			n++;
		}
		if (!n) {
			break;
		}
		if (n >= sizeof(word)) {
			char msg[96];
			format_snprintf(msg, sizeof(msg),
					"cmdline: word '%.16s...' too long, ignored", line);
			warn(msg);
			warnings++;
		} else {
			for (size_t i = 0; i < n; i++) {
				word[i] = line[i];
			}
			word[n] = '\0';
			warnings += apply(word, opts, nopts, warn);
		}
		line += n;
	}
	return warnings;
}
