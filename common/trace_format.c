/*
 * trace_format: the event line (see trace_format.h), built piece by piece
 * into the caller's buffer with a struct format_buf, which counts what
 * does not fit so the return value is the whole line's length.
 */
#include "common/trace_format.h"

#include <stdbool.h>
#include <stdint.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_aux.h"
#include "common/trace_decoder.h"
#include "common/trace_names.h"
#include "common/trace_stack.h"
#include "common/uevent_payload.h"

#define US_PER_S 1000000ull

/* A string argument is printed up to this many bytes. */
#define STRING_MAX 64

static void put_time(struct format_buf *l, uint64_t ts, const struct ttrace_header *h)
{
	if (!h->tsc_hz) {
		format_buf_printf(l, "[%llu]", (unsigned long long)ts);
		return;
	}
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;
	/* rem < tsc_hz, so rem * 10^6 fits 64 bits for any TSC below 18 THz */
	uint64_t us = d % h->tsc_hz * US_PER_S / h->tsc_hz;

	format_buf_printf(l, "[%5llu.%06llu]", (unsigned long long)(d / h->tsc_hz),
			  (unsigned long long)us);
}

int ttrace_format_aux_string(char *buf, size_t size, const struct ttrace_area *a, uint64_t ref)
{
	struct ttrace_aux_record rec;
	char s[STRING_MAX + 1];
	int len = ttrace_aux_lookup(a, ref, &rec, s, sizeof(s));

	if (len == -ENOENT) {
		format_snprintf(buf, size, "<evicted>");
		return 0;
	}
	if (len < 0) {
		format_snprintf(buf, size, "<bad %#llx>", (unsigned long long)ref);
		return 0;
	}
	for (char *p = s; *p; p++) {
		if (*p < ' ' || *p > '~' || *p == '"' || *p == '\\') {
			*p = '?';
		}
	}
	format_snprintf(buf, size, "%s%s", s, len > STRING_MAX ? "..." : "");
	return 1;
}

int ttrace_format_arg_string(char *buf, size_t size, const struct ttrace_record *rec, uint64_t ref,
			     struct ttrace_decoder *d)
{
	struct ttrace_aux_record aux;
	char s[1];
	const char *name;

	if (rec->kind == TTRACE_KIND_proc_spawn &&
	    ttrace_aux_lookup(d->area, ref, &aux, s, sizeof(s)) == -ENOENT &&
	    *(name = ttrace_decoder_comm(d, (uint32_t)rec->data[0])) != '?') {
		format_snprintf(buf, size, "%s", name);
		return 1;
	}
	return ttrace_format_aux_string(buf, size, d->area, ref);
}

/* The string argument ref of rec: quoted, or why there is none. */
static void put_string(struct format_buf *l, const struct ttrace_record *rec, uint64_t ref,
		       struct ttrace_decoder *d)
{
	char s[STRING_MAX + sizeof("...")];

	if (ttrace_format_arg_string(s, sizeof(s), rec, ref, d)) {
		format_buf_printf(l, "\"%s\"", s);
	} else {
		format_buf_printf(l, "%s", s);
	}
}

/* A syscall number, then its name from the durable aux records (written at boot). */
static void put_syscall(struct format_buf *l, uint64_t nr, const struct ttrace_decoder *d)
{
	size_t len;
	const char *name = ttrace_decoder_syscall(d, nr, &len);

	format_buf_printf(l, "%llu", (unsigned long long)nr);
	if (name) {
		format_buf_printf(l, " name=%.*s", (int)len, name);
	}
}

void ttrace_format_arg_code(char *buf, size_t size, uint64_t addr, struct ttrace_decoder *d)
{
	char name[TTRACE_FRAME_NAME_MAX];
	struct ttrace_frame f = {addr, "kernel", true, false};

	if (d->symbolize && d->symbolize(d->symbolize_ctx, &f, name, sizeof(name))) {
		int len = 0;

		while (name[len] && name[len] != ' ') {
			len++;
		}
		format_snprintf(buf, size, "%.*s", len, name);
	} else {
		format_snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	}
}

static void put_code(struct format_buf *l, uint64_t addr, struct ttrace_decoder *d)
{
	char s[TTRACE_FRAME_NAME_MAX];

	ttrace_format_arg_code(s, sizeof(s), addr, d);
	format_buf_printf(l, "%s", s);
}

/* The name arg's list gives v, if it has one: returns whether it printed it. */
static bool put_value_name(struct format_buf *l, const struct ttrace_arg *arg, uint64_t v)
{
	const char *name = arg->values ? ttrace_value_name(arg->values, (int64_t)v) : NULL;

	if (name) {
		format_buf_printf(l, "%s", name);
	}
	return name != NULL;
}

static void put_arg(struct format_buf *l, const struct ttrace_arg *arg, uint64_t v,
		    const struct ttrace_record *rec, struct ttrace_decoder *d)
{
	format_buf_printf(l, " %.*s=", (int)arg->name_len, arg->name);
	switch (arg->format) {
	case 'x':
		format_buf_printf(l, "0x%llx", (unsigned long long)v);
		break;
	case 'd':
		if (!put_value_name(l, arg, v)) {
			format_buf_printf(l, "%lld", (long long)v);
		}
		break;
	case 's':
		put_string(l, rec, v, d);
		break;
	case 'y':
		put_syscall(l, v, d);
		break;
	case 'k':
		put_code(l, v, d);
		break;
	default:
		if (!put_value_name(l, arg, v)) {
			format_buf_printf(l, "%llu", (unsigned long long)v);
		}
		break;
	}
}

/* What every line starts with: the time and who. */
static void put_prefix(struct format_buf *l, const struct ttrace_record *rec,
		       struct ttrace_decoder *d)
{
	put_time(l, rec->ts, d->area->hdr);
	format_buf_printf(l, " cpu=%u pid=%u tid=%u comm=%s", rec->cpu, rec->pid, rec->tid,
			  ttrace_decoder_comm(d, rec->pid));
}

/* A user event decoded with its definition: "user:name a=1 s=\"hi\"". */
static void put_user(struct format_buf *l, const struct ttrace_record *rec,
		     const struct uevent_def *def)
{
	uint8_t payload[UEVENT_PAYLOAD_MAX];
	uint32_t len = UEVENT_WORD0_LEN(rec->data[0]);

	format_buf_printf(l, " user:%s", def->name);
	if (len > sizeof(payload)) {
		format_buf_printf(l, " <bad length %u>", len);
		return;
	}
	__builtin_memcpy(payload, &rec->data[1], len);
	if (!def->nfields) {
		return;
	}
	format_buf_printf(l, " ");
	l->len += (size_t)uevent_payload_format(def, payload, len,
						l->len < l->size ? l->buf + l->len : NULL,
						l->len < l->size ? l->size - l->len : 0);
}

/* A user event without its definition: word 0 decoded, then the payload words. */
static void put_user_raw(struct format_buf *l, const struct ttrace_record *rec)
{
	uint32_t len = UEVENT_WORD0_LEN(rec->data[0]);
	uint32_t words = len > UEVENT_PAYLOAD_MAX ? TTRACE_EVENT_WORDS_MAX - 1 : (len + 7) / 8;

	format_buf_printf(l, " user event=%u gen=%u len=%u", UEVENT_WORD0_ID(rec->data[0]),
			  UEVENT_WORD0_GEN(rec->data[0]), len);
	for (uint32_t n = 0; n < words; n++) {
		format_buf_printf(l, "%s0x%llx",
				  n ? "," : " data=", (unsigned long long)rec->data[1 + n]);
	}
}

/* One frame's line: "\n    0xffffffff80104a2b kernel", its name in place of hex if known. */
static void put_frame(struct format_buf *l, const struct ttrace_frame *f, struct ttrace_decoder *d)
{
	char name[TTRACE_FRAME_NAME_MAX];

	if (d->symbolize && d->symbolize(d->symbolize_ctx, f, name, sizeof(name))) {
		format_buf_printf(l, "\n    %s %s", name, f->comm);
	} else {
		format_buf_printf(l, "\n    0x%016llx %s", (unsigned long long)f->addr, f->comm);
	}
}

/*
 * The event's call stack, if it carries one: a line a frame, and a line
 * for a cut. Every frame is a return address but the user's first (its
 * ip) and a kernel sample's first (the interrupted ip).
 */
static void put_stack(struct format_buf *l, const struct ttrace_record *rec,
		      struct ttrace_decoder *d)
{
	struct ttrace_stack s;

	if (!ttrace_stack_get(rec, &s)) {
		return;
	}
	bool sample = rec->kind == TTRACE_KIND_prof_sample;
	for (uint32_t i = 0; i < s.nkernel; i++) {
		struct ttrace_frame f = {s.frames[i], "kernel", true, !(sample && !i)};
		put_frame(l, &f, d);
	}
	if (s.kernel_cut) {
		format_buf_printf(l, "\n    ... kernel stack cut");
	}
	const char *comm = ttrace_decoder_comm(d, rec->pid);
	for (uint32_t i = 0; i < s.nuser; i++) {
		struct ttrace_frame f = {s.frames[s.nkernel + i], comm, false, i > 0};
		put_frame(l, &f, d);
	}
	if (s.user_cut) {
		format_buf_printf(l, "\n    ... user stack cut");
	}
}

int ttrace_format_event(char *buf, size_t size, const struct ttrace_record *rec,
			struct ttrace_decoder *d)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(rec->kind);
	struct format_buf l = format_buf_start(buf, size);

	put_prefix(&l, rec, d);
	if (!k) {
		format_buf_printf(&l, " kind=%u", rec->kind);
		for (uint32_t n = 0; n < TTRACE_HEAD_WORDS; n++) {
			format_buf_printf(&l, " d%u=0x%llx", n, (unsigned long long)rec->data[n]);
		}
		return (int)l.len;
	}
	if (rec->kind == TTRACE_KIND_user) {
		const struct uevent_def *def = ttrace_decoder_uevent(
		    d, UEVENT_WORD0_ID(rec->data[0]), UEVENT_WORD0_GEN(rec->data[0]));
		if (def) {
			put_user(&l, rec, def);
		} else {
			put_user_raw(&l, rec);
		}
		return (int)l.len;
	}
	format_buf_printf(&l, " %s", k->name);

	const char *spec = k->args;
	struct ttrace_arg arg;

	for (uint32_t n = 0; n < TTRACE_EVENT_WORDS_MAX && ttrace_arg_next(&spec, &arg) == 1; n++) {
		put_arg(&l, &arg, rec->data[n], rec, d);
	}
	put_stack(&l, rec, d);
	return (int)l.len;
}

int ttrace_format_lost(char *buf, size_t size, uint32_t cpu, uint64_t n)
{
	return format_snprintf(buf, size, "# lost %llu events on cpu %u\n", (unsigned long long)n,
			       cpu);
}

int ttrace_format_end(char *buf, size_t size, uint64_t events, uint64_t lost)
{
	return format_snprintf(buf, size, "# end of dump: %llu events, %llu lost\n",
			       (unsigned long long)events, (unsigned long long)lost);
}
