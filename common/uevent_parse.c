/*
 * uevent_parse: user-event descriptions both ways (see uevent_parse.h and
 * the grammar in abi/uevent.h). The parser checks the bytes first
 * (length, printable ASCII), then takes the event name word, then each
 * ';'-field as a list of words: the words alone decide where a type ends,
 * and the type's text, with one space between words, is looked up in the
 * table of uevent_types.c, so the spellings the parser accepts and the
 * ones uevent_def_format() prints are the same list.
 */
#include "common/uevent_parse.h"

#include <stdarg.h>
#include <stdint.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/uevent_types.h"

#define FIELD_WORDS_MAX 5  /* "struct TYPE name SIZE" and one word too many */
#define TYPE_TEXT_MAX	32 /* longer than any spelling: "__data_loc unsigned char[]" */
#define QUOTE_MAX	40 /* a longer word is cut to this in a reason, then "..." */
#define DECIMAL		10
#define HEXADECIMAL	16

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

/* The value of c as a digit of base, or -1. */
static int digit_value(char c, uint32_t base)
{
	int v = -1;

	if (is_digit(c)) {
		v = c - '0';
	} else if (c >= 'a' && c <= 'f') {
		v = c - 'a' + DECIMAL;
	} else if (c >= 'A' && c <= 'F') {
		v = c - 'A' + DECIMAL;
	}
	return v >= 0 && (uint32_t)v < base ? v : -1;
}

/* A word of the description: len bytes at s, not NUL-terminated. */
struct word {
	const char *s;
	size_t len;
};

/* True if w is exactly the NUL-terminated lit. */
static bool word_is(struct word w, const char *lit)
{
	size_t i = 0;

	while (i < w.len && lit[i] && w.s[i] == lit[i]) {
		i++;
	}
	return i == w.len && !lit[i];
}

static bool is_identifier(struct word w)
{
	if (!w.len || is_digit(w.s[0])) {
		return false;
	}
	for (size_t i = 0; i < w.len; i++) {
		if (!is_ident_char(w.s[i])) {
			return false;
		}
	}
	return true;
}

/*
 * N of char[N] or a struct's SIZE: decimal without a leading zero (Linux
 * would read one as octal) or 0x and hex. Values over UEVENT_ARRAY_MAX
 * stay over it without overflowing. False if w is not a number.
 */
static bool parse_count(struct word w, uint32_t *out)
{
	uint32_t base = DECIMAL;
	uint32_t v = 0;
	size_t i = 0;

	if (w.len > 2 && w.s[0] == '0' && (w.s[1] == 'x' || w.s[1] == 'X')) {
		base = HEXADECIMAL;
		i = 2;
	} else if (!w.len || (w.len > 1 && w.s[0] == '0')) {
		return false;
	}
	for (; i < w.len; i++) {
		int d = digit_value(w.s[i], base);

		if (d < 0) {
			return false;
		}
		if (v <= UEVENT_ARRAY_MAX) {
			v = v * base + (uint32_t)d;
		}
	}
	*out = v;
	return true;
}

/* Where a reason goes, and which field the parser is at (1-based). */
struct parse {
	char *why;
	size_t why_size;
	uint32_t index;
};

/*
 * A word as a reason quotes it: NUL-terminated, cut to QUOTE_MAX
 * characters and then "...". Words are copied rather than printed with
 * "%.*s", so the formatter never looks at the byte after a word, which may
 * lie past the end of the description.
 */
struct quote {
	char s[QUOTE_MAX + sizeof("...")];
};

static struct quote quote(struct word w)
{
	struct quote q;
	size_t n = w.len > QUOTE_MAX ? QUOTE_MAX : w.len;

	for (size_t i = 0; i < n; i++) {
		q.s[i] = w.s[i];
	}
	q.s[n] = '\0';
	if (n < w.len) {
		q.s[n] = q.s[n + 1] = q.s[n + 2] = '.';
		q.s[n + 3] = '\0';
	}
	return q;
}

/* Writes the reason and returns err. */
__attribute__((format(printf, 3, 4))) static int fail(struct parse *p, int err, const char *fmt,
						      ...)
{
	if (p->why && p->why_size) {
		va_list ap;

		va_start(ap, fmt);
		format_vsnprintf(p->why, p->why_size, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Checks an identifier of at most max characters; what names it. */
static int check_name(struct parse *p, struct word w, size_t max, const char *what)
{
	if (!is_identifier(w)) {
		return fail(p, -EINVAL, "%s '%s' is not a C identifier", what, quote(w).s);
	}
	if (w.len > max) {
		return fail(p, -ENAMETOOLONG, "%s '%s' is longer than %zu characters", what,
			    quote(w).s, max);
	}
	return 0;
}

static void copy_name(char *dst, struct word w)
{
	for (size_t i = 0; i < w.len; i++) {
		dst[i] = w.s[i];
	}
	dst[w.len] = '\0';
}

/* Splits [s, end) at spaces and tabs into at most FIELD_WORDS_MAX words. */
static size_t split(const char *s, const char *end, struct word *w)
{
	size_t n = 0;

	while (n < FIELD_WORDS_MAX) {
		while (s < end && is_space(*s)) {
			s++;
		}
		if (s == end) {
			break;
		}
		w[n].s = s;
		while (s < end && !is_space(*s)) {
			s++;
		}
		w[n].len = (size_t)(s - w[n].s);
		n++;
	}
	return n;
}

/* A type's text with one space between words, for the table lookup. */
struct type_text {
	char s[TYPE_TEXT_MAX];
	size_t len;
	bool overflow;
};

static void text_add(struct type_text *t, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (t->len + 1 >= TYPE_TEXT_MAX) {
			t->overflow = true;
			return;
		}
		t->s[t->len++] = s[i];
	}
	t->s[t->len] = '\0';
}

/* The type whose spelling is t, or UEVENT_TYPE_NONE. Structs are not looked up. */
static uint16_t lookup(const struct type_text *t)
{
	if (t->overflow) {
		return UEVENT_TYPE_NONE;
	}
	for (uint16_t i = UEVENT_TYPE_NONE + 1; i < UEVENT_TYPE_LIMIT; i++) {
		if (i != UEVENT_TYPE_STRUCT &&
		    word_is((struct word){t->s, t->len}, uevent_type_spelling(i))) {
			return i;
		}
	}
	return UEVENT_TYPE_NONE;
}

/*
 * The type at the start of a field's words: [__data_loc|__rel_loc]
 * [unsigned] BASE, BASE perhaps ending in [N]. Sets *type, *size and *used
 * (the words it took) or fails.
 */
static int parse_type(struct parse *p, const struct word *w, size_t nw, uint16_t *type,
		      uint32_t *size, size_t *used)
{
	struct type_text text = {.len = 0};
	struct word span;
	struct word inside = {NULL, 0};
	bool bracket = false;
	size_t i = 0;

	if (word_is(w[0], "__data_loc") || word_is(w[0], "__rel_loc")) {
		i++;
	}
	if (i < nw && word_is(w[i], "unsigned")) {
		i++;
	}
	if (i == nw) {
		span = (struct word){w[0].s, (size_t)(w[nw - 1].s + w[nw - 1].len - w[0].s)};
		return fail(p, -EINVAL, "incomplete type '%s' in field %u", quote(span).s,
			    p->index);
	}
	span = (struct word){w[0].s, (size_t)(w[i].s + w[i].len - w[0].s)};
	*used = i + 1;
	for (size_t k = 0; k < i; k++) {
		text_add(&text, w[k].s, w[k].len);
		text_add(&text, " ", 1);
	}
	for (size_t k = 0; k < w[i].len; k++) {
		if (w[i].s[k] == '[') {
			bracket = true;
			inside = (struct word){w[i].s + k + 1, w[i].len - k - 1};
			text_add(&text, w[i].s, k);
			break;
		}
	}
	if (!bracket) {
		text_add(&text, w[i].s, w[i].len);
	} else if (!inside.len || inside.s[inside.len - 1] != ']') {
		return fail(p, -EINVAL, "unknown type '%s' in field %u (no closing ']')",
			    quote(span).s, p->index);
	} else {
		inside.len--;
		text_add(&text, "[]", 2);
	}

	*type = lookup(&text);
	if (*type == UEVENT_TYPE_NONE) {
		if (!text.overflow && (word_is((struct word){text.s, text.len}, "long") ||
				       word_is((struct word){text.s, text.len}, "unsigned long"))) {
			return fail(p, -EINVAL,
				    "unknown type '%s' in field %u (long is ambiguous; use %s)",
				    quote(span).s, p->index, i ? "u64 or u32" : "s64 or s32");
		}
		if (word_is(w[0], "__data_loc") || word_is(w[0], "__rel_loc")) {
			return fail(p, -EINVAL,
				    "unknown type '%s' in field %u (%s takes char[] or unsigned "
				    "char[])",
				    quote(span).s, p->index, quote(w[0]).s);
		}
		return fail(p, -EINVAL, "unknown type '%s' in field %u", quote(span).s, p->index);
	}
	if (uevent_type_is_dynamic(*type)) {
		if (inside.len) {
			return fail(p, -EINVAL,
				    "type '%s' in field %u: a dynamic array takes no size",
				    quote(span).s, p->index);
		}
		*size = UEVENT_LOC_SIZE;
		return 0;
	}
	if (!uevent_type_is_array(*type)) {
		*size = uevent_type_size(*type);
		return 0;
	}
	if (!inside.len) {
		return fail(p, -EINVAL,
			    "array '%s' in field %u has no size (variable length: __data_loc "
			    "%s)",
			    quote(span).s, p->index, uevent_type_spelling(*type));
	}
	if (inside.len > UEVENT_ARRAY_TEXT_MAX) {
		return fail(p, -EINVAL, "array size '%s' in field %u is longer than %u characters",
			    quote(inside).s, p->index, UEVENT_ARRAY_TEXT_MAX);
	}
	if (!parse_count(inside, size)) {
		return fail(p, -EINVAL, "bad array size '%s' in field %u (decimal or 0x hex)",
			    quote(inside).s, p->index);
	}
	if (*size == 0) {
		return fail(p, -EINVAL, "empty array '%s' in field %u", quote(span).s, p->index);
	}
	if (*size > UEVENT_ARRAY_MAX) {
		return fail(p, -EINVAL, "array '%s' in field %u is longer than %u", quote(span).s,
			    p->index, UEVENT_ARRAY_MAX);
	}
	return 0;
}

/* struct TYPE name SIZE: sets f's struct_type, *name and *size, or fails. */
static int parse_struct(struct parse *p, const struct word *w, size_t nw, struct uevent_field *f,
			struct word *name, uint32_t *size)
{
	int err;

	if (nw < 2) {
		return fail(p, -EINVAL, "struct in field %u has no type name", p->index);
	}
	err = check_name(p, w[1], UEVENT_FIELD_NAME_MAX, "struct type");
	if (err) {
		return err;
	}
	if (nw < 3) {
		return fail(p, -EINVAL, "struct %s in field %u has no field name", quote(w[1]).s,
			    p->index);
	}
	*name = w[2];
	err = check_name(p, *name, UEVENT_FIELD_NAME_MAX, "field name");
	if (err) {
		return err;
	}
	if (nw < 4) {
		return fail(p, -EINVAL, "struct field '%s' has no size", quote(*name).s);
	}
	if (!parse_count(w[3], size)) {
		return fail(p, -EINVAL, "bad size '%s' of struct field '%s'", quote(w[3]).s,
			    quote(*name).s);
	}
	if (*size == 0 || *size > UEVENT_ARRAY_MAX) {
		return fail(p, -EINVAL, "size '%s' of struct field '%s' is not 1..%u",
			    quote(w[3]).s, quote(*name).s, UEVENT_ARRAY_MAX);
	}
	if (nw > 4) {
		return fail(p, -EINVAL, "unexpected '%s' after struct field '%s'", quote(w[4]).s,
			    quote(*name).s);
	}
	copy_name(f->struct_type, w[1]);
	return 0;
}

/* Appends the field made of words w[0..nw) to d, or fails. */
static int parse_field(struct parse *p, const struct word *w, size_t nw, struct uevent_def *d)
{
	struct uevent_field *f = &d->field[d->nfields];
	struct word name;
	uint16_t type = UEVENT_TYPE_STRUCT;
	uint32_t size = 0;
	size_t used = 0;
	int err;

	if (d->nfields == UEVENT_FIELDS_MAX) {
		return fail(p, -E2BIG, "field %u is one too many (at most %u fields)", p->index,
			    UEVENT_FIELDS_MAX);
	}
	if (word_is(w[0], "struct")) {
		err = parse_struct(p, w, nw, f, &name, &size);
		if (err) {
			return err;
		}
	} else {
		err = parse_type(p, w, nw, &type, &size, &used);
		if (err) {
			return err;
		}
		if (used == nw) {
			struct word span = {w[0].s, (size_t)(w[nw - 1].s + w[nw - 1].len - w[0].s)};

			return fail(p, -EINVAL, "field %u has no name after its type '%s'",
				    p->index, quote(span).s);
		}
		name = w[used];
		err = check_name(p, name, UEVENT_FIELD_NAME_MAX, "field name");
		if (err) {
			return err;
		}
		if (nw > used + 1) {
			return fail(p, -EINVAL,
				    "unexpected '%s' after field '%s' (only struct fields "
				    "take a size)",
				    quote(w[used + 1]).s, quote(name).s);
		}
	}
	for (uint32_t i = 0; i < d->nfields; i++) {
		if (word_is(name, d->field[i].name)) {
			return fail(p, -EINVAL, "field name '%s' is used twice (fields %u and %u)",
				    quote(name).s, i + 1, p->index);
		}
	}
	if (d->fixed_size + size > UEVENT_PAYLOAD_MAX) {
		return fail(p, -E2BIG,
			    "field '%s' ends at byte %u, past the payload limit of %u bytes",
			    quote(name).s, d->fixed_size + size, UEVENT_PAYLOAD_MAX);
	}
	copy_name(f->name, name);
	f->type = type;
	f->offset = (uint16_t)d->fixed_size;
	f->size = (uint16_t)size;
	d->fixed_size += size;
	d->nfields++;
	return 0;
}

/* The event name word: a C identifier, with no ':' flags part. */
static int parse_name(struct parse *p, struct word w, struct uevent_def *d)
{
	struct word name = w;
	int err;

	for (size_t i = 0; i < w.len; i++) {
		if (w.s[i] == ':') {
			struct word flags = {w.s + i + 1, w.len - i - 1};

			name.len = i;
			if (!name.len) {
				return fail(p, -EINVAL, "missing event name before ':'");
			}
			if (!flags.len) {
				return fail(p, -EINVAL,
					    "empty flags after '%s:' (leave out the ':')",
					    quote(name).s);
			}
			return fail(p, -EINVAL, "flags '%s' of event '%s' are not supported",
				    quote(flags).s, quote(name).s);
		}
	}
	err = check_name(p, name, UEVENT_NAME_MAX, "event name");
	if (err) {
		return err;
	}
	copy_name(d->name, name);
	return 0;
}

int uevent_parse(const char *desc, size_t len, struct uevent_def *out, char *why, size_t why_size)
{
	struct parse p = {.why = why, .why_size = why_size, .index = 0};
	const char *s = desc;
	const char *end;
	size_t n = 0;
	int err;

	while (n < len && desc[n]) {
		unsigned char c = (unsigned char)desc[n];

		if (n == UEVENT_DESC_MAX) {
			return fail(&p, -E2BIG, "description is longer than %u bytes",
				    UEVENT_DESC_MAX);
		}
		if (c != '\t' && (c < UEVENT_ASCII_FIRST || c > UEVENT_ASCII_LAST)) {
			return fail(&p, -EINVAL, "byte 0x%02x at offset %zu is not printable ASCII",
				    c, n);
		}
		n++;
	}
	end = desc + n;
	*out = (struct uevent_def){.nfields = 0};

	while (s < end && is_space(*s)) {
		s++;
	}
	if (s == end) {
		return fail(&p, -EINVAL, "empty description");
	}
	const char *name = s;

	while (s < end && !is_space(*s)) {
		s++;
	}
	err = parse_name(&p, (struct word){name, (size_t)(s - name)}, out);
	if (err) {
		return err;
	}
	while (s < end) {
		const char *field_end = s;
		struct word w[FIELD_WORDS_MAX];
		size_t nw;

		while (field_end < end && *field_end != ';') {
			field_end++;
		}
		nw = split(s, field_end, w);
		if (nw) {
			p.index++;
			err = parse_field(&p, w, nw, out);
			if (err) {
				return err;
			}
		}
		s = field_end < end ? field_end + 1 : end;
	}
	return 0;
}

/* True if the NUL-terminated strings in arrays of max bytes are equal. */
static bool name_eq(const char *a, const char *b, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		if (a[i] != b[i]) {
			return false;
		}
		if (!a[i]) {
			return true;
		}
	}
	return true;
}

bool uevent_def_same(const struct uevent_def *a, const struct uevent_def *b)
{
	if (!name_eq(a->name, b->name, sizeof(a->name)) || a->nfields != b->nfields ||
	    a->fixed_size != b->fixed_size || a->nfields > UEVENT_FIELDS_MAX) {
		return false;
	}
	for (uint32_t i = 0; i < a->nfields; i++) {
		const struct uevent_field *fa = &a->field[i];
		const struct uevent_field *fb = &b->field[i];

		if (!name_eq(fa->name, fb->name, sizeof(fa->name)) ||
		    !name_eq(fa->struct_type, fb->struct_type, sizeof(fa->struct_type)) ||
		    fa->type != fb->type || fa->offset != fb->offset || fa->size != fb->size) {
			return false;
		}
	}
	return true;
}

int uevent_def_format(const struct uevent_def *d, char *buf, size_t size)
{
	struct format_buf o = format_buf_start(buf, size);
	uint32_t nfields = d->nfields < UEVENT_FIELDS_MAX ? d->nfields : UEVENT_FIELDS_MAX;

	format_buf_printf(&o, "%.*s", UEVENT_NAME_ARG(d->name));
	for (uint32_t i = 0; i < nfields; i++) {
		const struct uevent_field *f = &d->field[i];

		format_buf_putc(&o, i ? ';' : ' ');
		if (f->type == UEVENT_TYPE_STRUCT) {
			format_buf_printf(&o, "struct %.*s %.*s %u",
					  UEVENT_NAME_ARG(f->struct_type), UEVENT_NAME_ARG(f->name),
					  f->size);
		} else if (uevent_type_is_array(f->type)) {
			const char *t = uevent_type_spelling(f->type);
			size_t stem = 0;

			while (t[stem] && t[stem] != '[') {
				stem++;
			}
			format_buf_printf(&o, "%.*s[%u] %.*s", (int)stem, t, f->size,
					  UEVENT_NAME_ARG(f->name));
		} else {
			format_buf_printf(&o, "%s %.*s", uevent_type_spelling(f->type),
					  UEVENT_NAME_ARG(f->name));
		}
	}
	return (int)o.len;
}
