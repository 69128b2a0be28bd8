/*
 * trace_names: the tables generated from abi/trace_kinds.def and the
 * category and aux tag lists of abi/trace.h, and the small parsers over
 * them (see trace_names.h). Nothing here is kept in sync by hand.
 */
#include "common/trace_names.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "common/format.h"

static const struct ttrace_kind_info kinds[TTRACE_KIND_LIMIT] = {
#define TTRACE_KIND(id, kname, cat, kargs)                                                         \
	[id] = {.name = #kname, .args = kargs, .category = TTRACE_CAT(cat)},
#include "abi/trace_kinds.def"
#undef TTRACE_KIND
};

#define CAT_NAME(bit, NAME, name) [bit] = #name,
static const char *const category_names[] = {TTRACE_CATEGORIES(CAT_NAME)};
#undef CAT_NAME

#define NCATEGORIES (sizeof(category_names) / sizeof(category_names[0]))

_Static_assert(NCATEGORIES <= 64, "categories are bits of a u64");

#define AUX_TAG_NAME(value, NAME, one, all) [value] = {#one, #all},
static const char *const aux_tag_names[TTRACE_AUX_TAG_LIMIT][2] = {TTRACE_AUX_TAGS(AUX_TAG_NAME)};
#undef AUX_TAG_NAME

const char *ttrace_aux_tag_name(uint32_t tag, bool plural)
{
	return tag < TTRACE_AUX_TAG_LIMIT ? aux_tag_names[tag][plural] : NULL;
}

const struct ttrace_kind_info *ttrace_kind_info(uint32_t kind)
{
	if (kind >= TTRACE_KIND_LIMIT || !kinds[kind].name) {
		return NULL;
	}
	return &kinds[kind];
}

const char *ttrace_category_name(uint32_t bit)
{
	return bit < NCATEGORIES ? category_names[bit] : NULL;
}

static bool is_separator(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

/* True if the len bytes at word are exactly the NUL-terminated name. */
static bool word_is(const char *word, size_t len, const char *name)
{
	size_t i = 0;

	while (i < len && name[i] && word[i] == name[i]) {
		i++;
	}
	return i == len && !name[i];
}

/* The mask a category word stands for, or 0 if none. */
static uint64_t word_mask(const char *word, size_t len)
{
	if (word_is(word, len, "all")) {
		return TTRACE_CAT_ALL;
	}
	for (uint32_t bit = 0; bit < NCATEGORIES; bit++) {
		if (category_names[bit] && word_is(word, len, category_names[bit])) {
			return 1ull << bit;
		}
	}
	return 0;
}

int ttrace_category_parse(const char *list, uint64_t *mask, const char **bad, size_t *bad_len)
{
	uint64_t m = 0;
	const char *p = list;

	for (;;) {
		while (is_separator(*p)) {
			p++;
		}
		if (!*p) {
			break;
		}
		const char *word = p;

		while (*p && !is_separator(*p)) {
			p++;
		}
		uint64_t bits = word_mask(word, (size_t)(p - word));

		if (!bits) {
			*bad = word;
			*bad_len = (size_t)(p - word);
			return -EINVAL;
		}
		m |= bits;
	}
	*mask = m;
	return 0;
}

int ttrace_category_format(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;
	uint64_t unknown = mask;

	if (!mask) {
		return format_snprintf(buf, size, "none");
	}
	for (uint32_t bit = 0; bit < NCATEGORIES; bit++) {
		if (!(mask >> bit & 1) || !category_names[bit]) {
			continue;
		}
		unknown &= ~(1ull << bit);
		len += (size_t)format_snprintf(len < size ? buf + len : NULL,
					       len < size ? size - len : 0, "%s%s", len ? "," : "",
					       category_names[bit]);
	}
	if (unknown) {
		len += (size_t)format_snprintf(len < size ? buf + len : NULL,
					       len < size ? size - len : 0, "%s%#llx",
					       len ? "," : "", (unsigned long long)unknown);
	}
	return (int)len;
}

int ttrace_arg_next(const char **spec, struct ttrace_arg *arg)
{
	const char *p = *spec;

	while (*p == ' ') {
		p++;
	}
	if (!*p) {
		*spec = p;
		return 0;
	}
	const char *name = p;

	while (*p && *p != ' ' && *p != ':') {
		p++;
	}
	if (*p != ':' || p == name) {
		return -EINVAL;
	}
	arg->name = name;
	arg->name_len = (size_t)(p - name);
	arg->format = p[1];
	if (arg->format != 'x' && arg->format != 'u' && arg->format != 'd' && arg->format != 's' &&
	    arg->format != 'y' && arg->format != 'k') {
		return -EINVAL;
	}
	p += 2;
	arg->values = NULL;
	if (*p == '=' && (arg->format == 'u' || arg->format == 'd')) {
		const char *list = ++p;

		while (*p && *p != ' ') {
			p++;
		}
		arg->values = ttrace_values_find(list, (size_t)(p - list));
		if (!arg->values) {
			return -EINVAL;
		}
	}
	if (*p && *p != ' ') {
		return -EINVAL;
	}
	*spec = p;
	return 1;
}
