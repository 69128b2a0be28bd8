/*
 * format: vsnprintf and struct format_buf (see format.h). Output goes
 * through a cursor that counts every character it was asked to write but
 * stores only what fits, which gives the C return value.
 */
#include "common/format.h"

#include <stdbool.h>
#include <stdint.h>

#define FIELD_MAX 4096 /* widths and precisions are clamped here: no overflow */

struct out {
	char *buf;
	size_t size;
	size_t len; /* characters produced so far, stored or not */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size) {
		o->buf[o->len] = c;
	}
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0) {
		put(o, c);
	}
}

struct spec {
	bool left;
	bool zero;
	bool plus;
	bool space;
	bool alt;
	bool pointer; /* %p: always 0x, even for 0 */
	int width;
	int precision; /* -1 when absent */
};

static int clamp(int v)
{
	return v > FIELD_MAX ? FIELD_MAX : v;
}

static void emit_chars(struct out *o, const struct spec *sp, const char *s, int n)
{
	if (!sp->left) {
		pad(o, ' ', sp->width - n);
	}
	for (int i = 0; i < n; i++) {
		put(o, s[i]);
	}
	if (sp->left) {
		pad(o, ' ', sp->width - n);
	}
}

static void emit_string(struct out *o, const struct spec *sp, const char *s)
{
	int n = 0;

	if (!s) {
		s = "(null)";
	}
	/* The precision first: %.*s may be given bytes with no NUL after them. */
	while ((sp->precision < 0 || n < sp->precision) && s[n]) {
		n++;
	}
	emit_chars(o, sp, s, n);
}

static void emit_number(struct out *o, const struct spec *sp, uint64_t value, bool negative,
			unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	const char *prefix = "";

	/* C: precision 0 and value 0 print no digits at all. */
	if (value || sp->precision != 0) {
		do {
			tmp[n++] = digits[value % base];
			value /= base;
		} while (value);
	}
	if (negative) {
		prefix = "-";
	} else if (sp->plus && base == 10) {
		prefix = "+";
	} else if (sp->space && base == 10) {
		prefix = " ";
	} else if (sp->pointer || (sp->alt && base == 16 && n && !(n == 1 && tmp[0] == '0'))) {
		prefix = upper ? "0X" : "0x";
	} else if (sp->alt && base == 8 && (!n || tmp[n - 1] != '0')) {
		prefix = "0";
	}
	int plen = 0;
	while (prefix[plen]) {
		plen++;
	}
	int zeros = sp->precision > n ? sp->precision - n : 0;
	if (sp->zero && !sp->left && sp->precision < 0 && sp->width > plen + n) {
		zeros = sp->width - plen - n;
	}
	int total = plen + zeros + n;

	if (!sp->left) {
		pad(o, ' ', sp->width - total);
	}
	for (int i = 0; i < plen; i++) {
		put(o, prefix[i]);
	}
	pad(o, '0', zeros);
	while (n) {
		put(o, tmp[--n]);
	}
	if (sp->left) {
		pad(o, ' ', sp->width - total);
	}
}

static int parse_int(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		v = clamp(v * 10 + (**p - '0'));
		(*p)++;
	}
	return v;
}

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG };

static enum length parse_length(const char **p)
{
	switch (**p) {
	case 'h':
		(*p)++;
		if (**p == 'h') {
			(*p)++;
			return LEN_CHAR;
		}
		return LEN_SHORT;
	case 'l':
		(*p)++;
		if (**p == 'l') {
			(*p)++;
		}
		return LEN_LONG;
	case 'z':
	case 'j':
	case 't':
		(*p)++;
		return LEN_LONG; /* all 64-bit on x86_64 */
	default:
		return LEN_INT;
	}
}

static int64_t signed_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_LONG:
		return va_arg(*ap, int64_t);
	case LEN_SHORT:
		return (short)va_arg(*ap, int);
	case LEN_CHAR:
		return (signed char)va_arg(*ap, int);
	default:
		return va_arg(*ap, int);
	}
}

static uint64_t unsigned_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_LONG:
		return va_arg(*ap, uint64_t);
	case LEN_SHORT:
		return (unsigned short)va_arg(*ap, unsigned);
	case LEN_CHAR:
		return (unsigned char)va_arg(*ap, unsigned);
	default:
		return va_arg(*ap, unsigned);
	}
}

/* Reads flags, width and precision after a '%'; leaves *p at the length. */
static void parse_spec(const char **p, va_list *ap, struct spec *sp)
{
	*sp = (struct spec){.precision = -1};
	for (;; (*p)++) {
		if (**p == '-') {
			sp->left = true;
		} else if (**p == '0') {
			sp->zero = true;
		} else if (**p == '+') {
			sp->plus = true;
		} else if (**p == ' ') {
			sp->space = true;
		} else if (**p == '#') {
			sp->alt = true;
		} else {
			break;
		}
	}
	if (**p == '*') {
		int w = va_arg(*ap, int);
		(*p)++;
		if (w < 0) {
			sp->left = true;
			w = w == INT32_MIN ? FIELD_MAX : -w;
		}
		sp->width = clamp(w);
	} else {
		sp->width = parse_int(p);
	}
	if (**p == '.') {
		(*p)++;
		if (**p == '*') {
			int prec = va_arg(*ap, int);
			(*p)++;
			sp->precision = prec < 0 ? -1 : clamp(prec);
		} else {
			sp->precision = parse_int(p);
		}
	}
}

int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct out o = {.buf = buf, .size = size, .len = 0};
	va_list ap;
	const char *p;

	va_copy(ap, ap_in);
	for (p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		const char *start = p++;
		struct spec sp;
		parse_spec(&p, &ap, &sp);
		enum length len = parse_length(&p);

		switch (*p) {
		case 'd':
		case 'i': {
			int64_t v = signed_arg(&ap, len);
			uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
			emit_number(&o, &sp, mag, v < 0, 10, false);
			break;
		}
		case 'u':
			emit_number(&o, &sp, unsigned_arg(&ap, len), false, 10, false);
			break;
		case 'o':
			emit_number(&o, &sp, unsigned_arg(&ap, len), false, 8, false);
			break;
		case 'x':
		case 'X':
			emit_number(&o, &sp, unsigned_arg(&ap, len), false, 16, *p == 'X');
			break;
		case 'p':
			sp.pointer = true;
			emit_number(&o, &sp, (uintptr_t)va_arg(ap, void *), false, 16, false);
			break;
		case 's':
			emit_string(&o, &sp, va_arg(ap, const char *));
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			emit_chars(&o, &sp, &c, 1);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown: copy the rest verbatim rather than misread arguments. */
			for (p = start; *p; p++) {
				put(&o, *p);
			}
			p--;
			break;
		}
	}
	va_end(ap);
	if (size) {
		buf[o.len < size ? o.len : size - 1] = '\0';
	}
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int format_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = format_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

struct format_buf format_buf_start(char *buf, size_t size)
{
	if (size) {
		buf[0] = '\0';
	}
	return (struct format_buf){.buf = buf, .size = size, .len = 0};
}

void format_buf_putc(struct format_buf *b, char c)
{
	if (b->len + 1 < b->size) {
		b->buf[b->len] = c;
		b->buf[b->len + 1] = '\0';
	}
	b->len++;
}

void format_buf_printf(struct format_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (b->len < b->size) {
		n = format_vsnprintf(b->buf + b->len, b->size - b->len, fmt, ap);
	} else {
		n = format_vsnprintf(NULL, 0, fmt, ap);
	}
	va_end(ap);
	b->len += n > 0 ? (size_t)n : 0;
}
