/*
 * trace_format: the event line (see trace_format.h), built piece by piece
 * into the caller's buffer with format.c, counting what does not fit so
 * the return value is the whole line's length.
 */
#include "common/trace_format.h"

#include <stdarg.h>
#include <stdint.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_aux.h"
#include "common/trace_names.h"

#define US_PER_S 1000000ull

/* A string argument is printed up to this many bytes. */
#define STRING_MAX 64

struct line {
	char *buf;
	size_t size;
	size_t len; /* produced so far, stored or not */
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	l->len += (size_t)format_vsnprintf(l->len < l->size ? l->buf + l->len : NULL,
					   l->len < l->size ? l->size - l->len : 0, fmt, ap);
	va_end(ap);
}

static void put_time(struct line *l, uint64_t ts, const struct ttrace_header *h)
{
	if (!h->tsc_hz) {
		put(l, "[%llu]", (unsigned long long)ts);
		return;
	}
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;
	/* rem < tsc_hz, so rem * 10^6 fits 64 bits for any TSC below 18 THz */
	uint64_t us = d % h->tsc_hz * US_PER_S / h->tsc_hz;

	put(l, "[%5llu.%06llu]", (unsigned long long)(d / h->tsc_hz), (unsigned long long)us);
}

/* The aux string at ref, quoted, with bytes that would break the line as '?'. */
static void put_string(struct line *l, uint64_t ref, const struct ttrace_area *a)
{
	struct ttrace_aux_record rec;
	char s[STRING_MAX + 1];
	int len = ttrace_aux_lookup(a, ref, &rec, s, sizeof(s));

	if (len == -ENOENT) {
		put(l, "<evicted>");
		return;
	}
	if (len < 0) {
		put(l, "<bad %#llx>", (unsigned long long)ref);
		return;
	}
	for (char *p = s; *p; p++) {
		if (*p < ' ' || *p > '~' || *p == '"' || *p == '\\') {
			*p = '?';
		}
	}
	put(l, "\"%s%s\"", s, len > STRING_MAX ? "..." : "");
}

/* A syscall number, then its name from the durable aux records (written at boot). */
static void put_syscall(struct line *l, uint64_t nr, const struct ttrace_area *a)
{
	struct ttrace_aux_view v;
	struct ttrace_aux_record rec;
	const char *str;

	put(l, "%llu", (unsigned long long)nr);
	ttrace_aux_durable(a, &v);
	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		if (rec.tag == TTRACE_AUX_SYSCALL && rec.id == nr) {
			put(l, " name=%.*s", (int)rec.len, str);
			return;
		}
	}
}

static void put_arg(struct line *l, const struct ttrace_arg *arg, uint64_t v,
		    const struct ttrace_area *a)
{
	put(l, " %.*s=", (int)arg->name_len, arg->name);
	switch (arg->format) {
	case 'x':
		put(l, "0x%llx", (unsigned long long)v);
		break;
	case 'd':
		put(l, "%lld", (long long)v);
		break;
	case 's':
		put_string(l, v, a);
		break;
	case 'y':
		put_syscall(l, v, a);
		break;
	default:
		put(l, "%llu", (unsigned long long)v);
		break;
	}
}

int ttrace_format_record(char *buf, size_t size, const struct ttrace_record *rec,
			 const struct ttrace_area *a)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(rec->kind);
	struct line l = {.buf = buf, .size = size};
	uint32_t n = 0; /* data words printed */

	if (size) {
		buf[0] = '\0';
	}
	put_time(&l, rec->ts, a->hdr);
	put(&l, " cpu=%u pid=%u tid=%u", rec->cpu, rec->pid, rec->tid);
	if (!k) {
		put(&l, " kind=%u", rec->kind);
		for (; n < TTRACE_HEAD_WORDS; n++) {
			put(&l, " d%u=0x%llx", n, (unsigned long long)rec->data[n]);
		}
		return (int)l.len;
	}
	put(&l, " %s", k->name);

	const char *spec = k->args;
	struct ttrace_arg arg;

	while (n < TTRACE_EVENT_WORDS_MAX && ttrace_arg_next(&spec, &arg) == 1) {
		put_arg(&l, &arg, rec->data[n++], a);
	}
	if (rec->kind == TTRACE_KIND_user) {
		uint32_t last = TTRACE_EVENT_WORDS_MAX;

		while (last > n && !rec->data[last - 1]) {
			last--;
		}
		for (const char *sep = " data="; n < last; n++, sep = ",") {
			put(&l, "%s0x%llx", sep, (unsigned long long)rec->data[n]);
		}
	}
	return (int)l.len;
}
