/*
 * trace_pred_parse: a recursive descent over the grammar of
 * trace_pred_parse.h that emits postfix bytecode as it goes: each
 * comparison as it is read, each && || ! after its operands. It keeps the
 * stack's depth as the run will, so what it emits passes the kernel's
 * check; the first error stops it with the place it was found.
 */
#include "common/trace_pred_parse.h"

#include <stdarg.h>
#include <stdbool.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_names.h"
#include "common/trace_pred.h"

#define TOO_LONG "too long: more than %d characters"

struct parser {
	const char *text, *p;
	uint16_t kind;
	uint64_t among;
	uint32_t nest;	/* parentheses and ! we are inside */
	uint32_t depth; /* the run's stack after what is emitted */
	struct ttrace_pred_prog *out;
	char *why;
	size_t why_size;
	bool failed;
};

/* A field as the text names it. */
struct field {
	uint8_t id;   /* TTRACE_PRED_F_* */
	char format;  /* 'x' 'u' 'd' 's' 'y'; 'c' for comm; 0 for a word this kind lacks */
	uint64_t max; /* the largest value it holds (unsigned) */
	const struct ttrace_values *values;
};

static const struct {
	const char *name;
	uint8_t id;
	uint64_t max;
} common_fields[] = {
    {"pid", TTRACE_PRED_F_PID, UINT32_MAX},
    {"tid", TTRACE_PRED_F_TID, UINT32_MAX},
    {"cpu", TTRACE_PRED_F_CPU, TTRACE_MAX_CPUS - 1},
    {"ctx", TTRACE_PRED_F_CTX, TTRACE_CTX_MASK},
    {"comm", TTRACE_PRED_F_COMM, 0},
};

/* The names of the contexts, as ctx's values. */
static const struct ttrace_value ctx_names[] = {
    {TTRACE_CTX_KERNEL, "kernel"}, {TTRACE_CTX_IRQ, "irq"},   {TTRACE_CTX_SYSCALL, "syscall"},
    {TTRACE_CTX_TRAP, "trap"},	   {TTRACE_CTX_USER, "user"},
};
static const struct ttrace_values ctx_values = {
    .name = "ctx", .v = ctx_names, .n = sizeof(ctx_names) / sizeof(ctx_names[0])};

#define NCOMMON (sizeof(common_fields) / sizeof(common_fields[0]))

__attribute__((format(printf, 3, 4))) static int fail(struct parser *ps, const char *at,
						      const char *fmt, ...)
{
	va_list ap;

	if (ps->failed) {
		return -EINVAL;
	}
	ps->failed = true;
	int len = format_snprintf(ps->why, ps->why_size, "at %d: ", (int)(at - ps->text) + 1);
	if (len >= 0 && (size_t)len < ps->why_size) {
		va_start(ap, fmt);
		format_vsnprintf(ps->why + len, ps->why_size - (size_t)len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_spaces(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t') {
		ps->p++;
	}
}

/* Takes tok if the text goes on with it. */
static bool take(struct parser *ps, const char *tok)
{
	size_t n = 0;

	skip_spaces(ps);
	while (tok[n] && ps->p[n] == tok[n]) {
		n++;
	}
	if (tok[n]) {
		return false;
	}
	ps->p += n;
	return true;
}

/* Whether the len bytes at a are the NUL-terminated b. */
static bool same(const char *a, size_t len, const char *b)
{
	size_t i = 0;

	while (i < len && b[i] && a[i] == b[i]) {
		i++;
	}
	return i == len && !b[i];
}

/* Whether the len bytes at a and at b are the same. */
static bool same_n(const char *a, const char *b, size_t len)
{
	size_t i = 0;

	while (i < len && a[i] == b[i]) {
		i++;
	}
	return i == len;
}

/* Whether the format of some kind of kinds has a word called name. */
static bool any_kind_has(uint64_t kinds, const char *name, size_t len)
{
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		if (!(kinds >> k & 1)) {
			continue;
		}
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		struct ttrace_arg arg;
		const char *spec = info ? info->args : "";

		while (ttrace_arg_next(&spec, &arg) == 1) {
			if (arg.name_len == len && same_n(arg.name, name, len)) {
				return true;
			}
		}
	}
	return false;
}

/* The field called by the len bytes at name, for ps->kind; -EINVAL said if none is. */
static int find_field(struct parser *ps, const char *name, size_t len, struct field *f)
{
	const struct ttrace_kind_info *info = ttrace_kind_info(ps->kind);
	const char *spec = info->args;
	struct ttrace_arg arg;

	for (uint32_t i = 0; i < NCOMMON; i++) {
		if (same(name, len, common_fields[i].name)) {
			bool comm = common_fields[i].id == TTRACE_PRED_F_COMM;
			*f = (struct field){.id = common_fields[i].id,
					    .format = comm ? 'c' : 'u',
					    .max = common_fields[i].max,
					    .values = common_fields[i].id == TTRACE_PRED_F_CTX
							  ? &ctx_values
							  : NULL};
			return 0;
		}
	}
	for (uint8_t i = 0; ttrace_arg_next(&spec, &arg) == 1 && i < TTRACE_HEAD_WORDS; i++) {
		if (arg.name_len == len && same_n(arg.name, name, len)) {
			*f = (struct field){.id = (uint8_t)(TTRACE_PRED_F_DATA + i),
					    .format = arg.format,
					    .max = UINT64_MAX,
					    .values = arg.values};
			return 0;
		}
	}
	if (!any_kind_has(~0ull, name, len)) {
		return fail(ps, name, "unknown field '%.*s'", (int)len, name);
	}
	if (!ps->among) {
		return fail(ps, name, "%s has no field '%.*s'", info->name, (int)len, name);
	}
	if (!any_kind_has(ps->among, name, len)) {
		return fail(ps, name, "none of these kinds has a field '%.*s'", (int)len, name);
	}
	*f = (struct field){.format = 0};
	return 0;
}

/* Appends an instruction, keeping the depth the run will have. */
static int emit(struct parser *ps, const char *at, const struct ttrace_pred_insn *i, int pushes)
{
	if (ps->out->n == TTRACE_PRED_INSNS_MAX) {
		return fail(ps, at, "too long: more than %d operations", TTRACE_PRED_INSNS_MAX);
	}
	ps->depth = (uint32_t)((int)ps->depth + pushes);
	if (ps->depth > TTRACE_PRED_DEPTH_MAX) {
		return fail(ps, at, "too deep: more than %d terms pending", TTRACE_PRED_DEPTH_MAX);
	}
	ps->out->insn[ps->out->n++] = *i;
	return 0;
}

/* A value name of list l (the len bytes at name). */
static int value_named(struct parser *ps, const struct field *f, const char *name, size_t len,
		       uint64_t *v)
{
	const struct ttrace_values *l = f->values;

	if (!f->format) {
		*v = 0; /* a field this kind lacks: the comparison compiles as false anyway */
		return 0;
	}
	for (uint32_t i = 0; l && i < l->n; i++) {
		if (same(name, len, l->v[i].name)) {
			*v = (uint64_t)l->v[i].value;
			return 0;
		}
	}
	return fail(ps, name, "unknown value '%.*s'%s", (int)len, name,
		    l ? "" : " (this field takes numbers)");
}

/* A number at ps->p: decimal, -decimal or 0xhex; in range of f. */
static int number(struct parser *ps, const struct field *f, uint64_t *v)
{
	const char *at = ps->p;
	bool neg = *ps->p == '-';
	uint64_t n = 0, base = 10;

	ps->p += neg;
	if (ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X')) {
		base = 16;
		ps->p += 2;
	}
	const char *digits = ps->p;
	for (;; ps->p++) {
		char c = *ps->p;
		uint64_t d = is_digit(c)			  ? (uint64_t)(c - '0')
			     : base == 16 && c >= 'a' && c <= 'f' ? (uint64_t)(c - 'a' + 10)
			     : base == 16 && c >= 'A' && c <= 'F' ? (uint64_t)(c - 'A' + 10)
								  : base;
		if (d >= base) {
			break;
		}
		if (n > (UINT64_MAX - d) / base) {
			return fail(ps, at, "number too large");
		}
		n = n * base + d;
	}
	if (ps->p == digits || is_alpha(*ps->p)) {
		return fail(ps, at, "expected a number or a value's name");
	}
	if (f->format == 'd') {
		if ((neg && n > (uint64_t)INT64_MAX + 1) || (!neg && n > INT64_MAX)) {
			return fail(ps, at, "value out of range for a signed field");
		}
		*v = neg ? (uint64_t)0 - n : n;
		return 0;
	}
	if (neg && n) {
		return fail(ps, at, "value out of range: the field is unsigned");
	}
	if (f->format && n > f->max) {
		return fail(ps, at, "value out of range (at most %llu)",
			    (unsigned long long)f->max);
	}
	*v = n;
	return 0;
}

/* A "string" at ps->p into i->str. */
static int string(struct parser *ps, struct ttrace_pred_insn *i)
{
	const char *at = ps->p++;
	uint32_t n = 0;

	while (*ps->p && *ps->p != '"') {
		if (n == TTRACE_PRED_STR_BYTES - 1) {
			return fail(ps, at, "string longer than %d bytes",
				    TTRACE_PRED_STR_BYTES - 1);
		}
		i->str[n++] = *ps->p++;
	}
	if (*ps->p != '"') {
		return fail(ps, at, "string without its closing quote");
	}
	ps->p++;
	return 0;
}

/* The op at ps->p, for a field of format f. */
static int compare_op(struct parser *ps, const struct field *f, uint8_t *op)
{
	static const struct {
		const char *tok;
		uint8_t u, s;
	} ops[] = {
	    {"==", TTRACE_PRED_EQ, TTRACE_PRED_EQ},  {"!=", TTRACE_PRED_NE, TTRACE_PRED_NE},
	    {"<=", TTRACE_PRED_LE, TTRACE_PRED_SLE}, {">=", TTRACE_PRED_GE, TTRACE_PRED_SGE},
	    {"<", TTRACE_PRED_LT, TTRACE_PRED_SLT},  {">", TTRACE_PRED_GT, TTRACE_PRED_SGT},
	};

	skip_spaces(ps);
	const char *at = ps->p;
	if (ps->p[0] == '&' && ps->p[1] != '&') {
		ps->p++;
		*op = TTRACE_PRED_BIT;
	} else {
		uint32_t i = 0;
		while (i < sizeof(ops) / sizeof(ops[0]) && !take(ps, ops[i].tok)) {
			i++;
		}
		if (i == sizeof(ops) / sizeof(ops[0])) {
			return fail(ps, at, "expected == != < <= > >= or &");
		}
		*op = f->format == 'd' ? ops[i].s : ops[i].u;
	}
	if (f->format == 'c' && *op != TTRACE_PRED_EQ && *op != TTRACE_PRED_NE) {
		return fail(ps, at, "comm compares only with == and !=");
	}
	if (f->format == 's') {
		return fail(ps, at,
			    "a string reference compares with nothing (comm compares names)");
	}
	return 0;
}

/* FIELD OP VALUE at ps->p. */
static int comparison(struct parser *ps)
{
	struct ttrace_pred_insn i = {0};
	struct field f = {0};

	skip_spaces(ps);
	const char *name = ps->p;
	while (is_alpha(*ps->p) || (ps->p > name && is_digit(*ps->p))) {
		ps->p++;
	}
	if (ps->p == name) {
		return fail(ps, name, *name ? "expected a field name, ( or !" : "expected a term");
	}
	if (find_field(ps, name, (size_t)(ps->p - name), &f) || compare_op(ps, &f, &i.op)) {
		return -EINVAL;
	}
	skip_spaces(ps);
	const char *at = ps->p;
	if (*ps->p == '"') {
		if (f.format != 'c' || string(ps, &i)) {
			return f.format != 'c' ? fail(ps, at, "a string compares only with comm")
					       : -EINVAL;
		}
		i.op = i.op == TTRACE_PRED_EQ ? TTRACE_PRED_STR_EQ : TTRACE_PRED_STR_NE;
	} else if (f.format == 'c' && is_alpha(*ps->p)) {
		/* a bare name: the shell takes a word's quotes off before it sends it */
		uint32_t n = 0;
		while (is_alpha(*ps->p) || is_digit(*ps->p) || *ps->p == '-' || *ps->p == '.') {
			if (n == TTRACE_PRED_STR_BYTES - 1) {
				return fail(ps, at, "string longer than %d bytes",
					    TTRACE_PRED_STR_BYTES - 1);
			}
			i.str[n++] = *ps->p++;
		}
		i.op = i.op == TTRACE_PRED_EQ ? TTRACE_PRED_STR_EQ : TTRACE_PRED_STR_NE;
	} else if (f.format == 'c') {
		return fail(ps, at, "comm compares with a name or a \"string\"");
	} else if (is_alpha(*ps->p) || (*ps->p == '-' && is_alpha(ps->p[1]))) {
		const char *v = ps->p++;
		while (is_alpha(*ps->p) || is_digit(*ps->p)) {
			ps->p++;
		}
		if (value_named(ps, &f, v, (size_t)(ps->p - v), &i.value)) {
			return -EINVAL;
		}
	} else if (number(ps, &f, &i.value)) {
		return -EINVAL;
	}
	if (!f.format) {
		/* a field this kind lacks (LENIENT): the comparison is false */
		i = (struct ttrace_pred_insn){.op = TTRACE_PRED_FALSE};
	} else {
		i.field = f.id;
	}
	return emit(ps, name, &i, 1);
}

static int pred(struct parser *ps);

static int unary(struct parser *ps)
{
	skip_spaces(ps);
	const char *at = ps->p;
	int err;

	if (ps->p[0] == '!' && ps->p[1] != '=') {
		ps->p++;
		if (++ps->nest > TTRACE_PRED_NEST_MAX) {
			return fail(ps, at, "too deep: more than %d levels", TTRACE_PRED_NEST_MAX);
		}
		err = unary(ps);
		ps->nest--;
		return err ? err
			   : emit(ps, at, &(struct ttrace_pred_insn){.op = TTRACE_PRED_NOT}, 0);
	}
	if (take(ps, "(")) {
		if (++ps->nest > TTRACE_PRED_NEST_MAX) {
			return fail(ps, at, "too deep: more than %d levels", TTRACE_PRED_NEST_MAX);
		}
		err = pred(ps);
		ps->nest--;
		if (err) {
			return err;
		}
		skip_spaces(ps);
		return take(ps, ")") ? 0 : fail(ps, ps->p, "expected )");
	}
	return comparison(ps);
}

/* A chain of sub joined by tok, emitted as op after each pair. */
static int chain(struct parser *ps, int (*sub)(struct parser *), const char *tok, uint8_t op)
{
	int err = sub(ps);

	while (!err) {
		skip_spaces(ps);
		const char *at = ps->p;
		if (!take(ps, tok)) {
			break;
		}
		err = sub(ps);
		if (!err) {
			err = emit(ps, at, &(struct ttrace_pred_insn){.op = op}, -1);
		}
	}
	return err;
}

static int and_chain(struct parser *ps)
{
	return chain(ps, unary, "&&", TTRACE_PRED_AND);
}

static int pred(struct parser *ps)
{
	return chain(ps, and_chain, "||", TTRACE_PRED_OR);
}

int ttrace_pred_compile(const char *text, uint16_t kind, uint64_t among,
			struct ttrace_pred_prog *out, char *why, size_t why_size)
{
	struct parser ps = {.text = text,
			    .p = text,
			    .kind = kind,
			    .among = among,
			    .out = out,
			    .why = why,
			    .why_size = why_size};
	size_t len = 0;

	out->n = 0;
	while (len <= TTRACE_PRED_TEXT_MAX && text[len]) {
		len++;
	}
	if (!ttrace_kind_info(kind)) {
		return fail(&ps, text, "no kind %u", kind);
	}
	if (len > TTRACE_PRED_TEXT_MAX) {
		return fail(&ps, text + TTRACE_PRED_TEXT_MAX, TOO_LONG, TTRACE_PRED_TEXT_MAX);
	}
	if (pred(&ps)) {
		return -EINVAL;
	}
	skip_spaces(&ps);
	if (*ps.p) {
		return fail(&ps, ps.p, "expected && || or the end");
	}
	return 0;
}

/* The kind called by the len bytes at name, or 0. */
static uint16_t kind_named(const char *name, size_t len)
{
	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (info && same(name, len, info->name)) {
			return k;
		}
	}
	return 0;
}

int ttrace_pred_targets(const char *list, uint64_t *kinds, uint64_t *cats, char *why,
			size_t why_size)
{
	uint64_t k = 0, c = 0;
	const char *p = list;

	while (*p) {
		const char *w = p;
		while (*p && *p != ',') {
			p++;
		}
		size_t len = (size_t)(p - w);
		uint16_t kind = kind_named(w, len);
		uint64_t mask = 0;
		const char *bad;
		size_t bad_len;
		char one[TTRACE_PRED_TEXT_MAX + 1];

		if (kind) {
			k |= 1ull << kind;
			c |= ttrace_kind_info(kind)->category;
		} else if (len && len < sizeof(one)) {
			for (size_t i = 0; i < len; i++) {
				one[i] = w[i];
			}
			one[len] = 0;
			if (ttrace_category_parse(one, &mask, &bad, &bad_len) || !mask) {
				mask = 0;
			}
		}
		if (!kind && !mask) {
			format_snprintf(why, why_size, "unknown kind or category '%.*s'", (int)len,
					w);
			return -EINVAL;
		}
		for (uint16_t i = 1; mask && i < TTRACE_KIND_LIMIT; i++) {
			const struct ttrace_kind_info *info = ttrace_kind_info(i);
			if (info && info->category & mask) {
				k |= 1ull << i;
			}
		}
		c |= mask;
		p += *p == ',';
	}
	if (!k) {
		format_snprintf(why, why_size, "no kind or category given");
		return -EINVAL;
	}
	*kinds = k;
	*cats = c;
	return 0;
}

int ttrace_pred_check(const char *text, uint64_t kinds, char *why, size_t why_size)
{
	/* one kind alone is strict: `syscall_entry if result < 0` is an error */
	uint64_t among = kinds & (kinds - 1) ? kinds : 0;
	struct ttrace_pred_prog prog;

	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		if (kinds >> k & 1 && ttrace_pred_compile(text, k, among, &prog, why, why_size)) {
			return -EINVAL;
		}
	}
	return 0;
}

int ttrace_pred_join(int argc, char *const argv[], char *buf, size_t size, char *why,
		     size_t why_size)
{
	size_t at = 0, limit = size - 1 < TTRACE_PRED_TEXT_MAX ? size - 1 : TTRACE_PRED_TEXT_MAX;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		size_t len = 0;

		while (w[len]) {
			len++;
		}
		if (at + (i > 0) + len > limit) {
			/* the place is the first character past the limit, as compile's */
			format_snprintf(why, why_size, "at %d: " TOO_LONG, TTRACE_PRED_TEXT_MAX + 1,
					TTRACE_PRED_TEXT_MAX);
			return -EINVAL;
		}
		if (i > 0) {
			buf[at++] = ' ';
		}
		for (size_t c = 0; c < len; c++) {
			buf[at++] = w[c];
		}
	}
	buf[at] = 0;
	return 0;
}
