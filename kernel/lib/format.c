/*
 * format: vsnprintf without any kernel dependency (see format.h).
 * Output goes through a cursor that counts every character it was asked
 * to write but stores only what fits, which gives the C return value.
 */
#include "format.h"

#include <stdbool.h>
#include <stdint.h>

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
	int width;
	int precision; /* -1 when absent */
};

static void emit_string(struct out *o, const struct spec *sp, const char *s)
{
	int n = 0;

	if (!s) {
		s = "(null)";
	}
	while (s[n] && (sp->precision < 0 || n < sp->precision)) {
		n++;
	}
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

static void emit_number(struct out *o, const struct spec *sp, uint64_t value, bool negative,
			unsigned base, bool upper, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	int plen = 0;

	do {
		tmp[n++] = digits[value % base];
		value /= base;
	} while (value);
	while (prefix[plen]) {
		plen++;
	}
	int total = n + plen + (negative ? 1 : 0);
	if (!sp->left && !sp->zero) {
		pad(o, ' ', sp->width - total);
	}
	if (negative) {
		put(o, '-');
	}
	for (int i = 0; i < plen; i++) {
		put(o, prefix[i]);
	}
	if (!sp->left && sp->zero) {
		pad(o, '0', sp->width - total);
	}
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
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {.buf = buf, .size = size, .len = 0};

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		struct spec sp = {.precision = -1};
		for (;; p++) {
			if (*p == '-') {
				sp.left = true;
			} else if (*p == '0') {
				sp.zero = true;
			} else {
				break;
			}
		}
		if (*p == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			p++;
		} else {
			sp.width = parse_int(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				sp.precision = va_arg(ap, int);
				p++;
			} else {
				sp.precision = parse_int(&p);
			}
		}
		int longs = 0;
		while (*p == 'l' || *p == 'z') {
			longs += *p == 'z' ? 2 : 1;
			p++;
		}

		switch (*p) {
		case 'd':
		case 'i': {
			int64_t v = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
			uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
			emit_number(&o, &sp, mag, v < 0, 10, false, "");
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
			emit_number(&o, &sp, v, false, *p == 'u' ? 10 : 16, *p == 'X', "");
			break;
		}
		case 'p':
			emit_number(&o, &sp, (uintptr_t)va_arg(ap, void *), false, 16, false, "0x");
			break;
		case 's':
			emit_string(&o, &sp, va_arg(ap, const char *));
			break;
		case 'c': {
			char s[2] = {(char)va_arg(ap, int), 0};
			emit_string(&o, &sp, s);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			p--; /* a lone '%' at the end: stop at the terminator */
			break;
		default:
			/* Unknown conversion: print it as written so the bug is visible. */
			put(&o, '%');
			put(&o, *p);
			break;
		}
	}
	if (size) {
		buf[o.len < size ? o.len : size - 1] = '\0';
	}
	return (int)o.len;
}

int format_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = format_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
