/*
 * uevent_payload: the kernel's check of a written payload and its
 * key=value text in dumps (see uevent_payload.h and the payload layout in
 * abi/uevent.h). Payloads are read a byte at a time, little-endian, and
 * only below len.
 */
#include "common/uevent_payload.h"

#include <stdint.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/uevent_types.h"

#define BYTE_BITS   8
#define NIBBLE_BITS 4
#define NIBBLE_MASK 0xfu

static const char hex_digits[] = "0123456789abcdef";

/* The n <= 8 bytes at p as a little-endian number. */
static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		v |= (uint64_t)p[i] << (BYTE_BITS * i);
	}
	return v;
}

/* True if the field's own bytes lie inside the payload. */
static bool field_inside(const struct uevent_field *f, size_t len)
{
	return (size_t)f->offset + f->size <= len;
}

/*
 * The data of dynamic field f: *start and *size, true if the location word
 * and the data both lie inside the payload.
 */
static bool locate(const struct uevent_field *f, const uint8_t *p, size_t len, size_t *start,
		   size_t *size)
{
	uint32_t loc;
	size_t base = 0;

	if (f->size != UEVENT_LOC_SIZE || !field_inside(f, len)) {
		return false;
	}
	loc = (uint32_t)load_le(p + f->offset, UEVENT_LOC_SIZE);
	if (uevent_type_is_rel_loc(f->type)) {
		base = (size_t)f->offset + UEVENT_LOC_SIZE;
	}
	*start = base + UEVENT_LOC_DATA_OFF(loc);
	*size = UEVENT_LOC_DATA_SIZE(loc);
	return *start <= len && *size <= len - *start;
}

static bool has_nul(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!p[i]) {
			return true;
		}
	}
	return false;
}

int uevent_payload_check(const struct uevent_def *d, const void *payload, size_t len)
{
	const uint8_t *p = payload;

	if (len < d->fixed_size) {
		return -EINVAL;
	}
	if (len > UEVENT_PAYLOAD_MAX) {
		return -E2BIG;
	}
	for (uint32_t i = 0; i < d->nfields && i < UEVENT_FIELDS_MAX; i++) {
		const struct uevent_field *f = &d->field[i];
		size_t start;
		size_t size;

		if (!uevent_type_is_dynamic(f->type)) {
			continue;
		}
		if (!locate(f, p, len, &start, &size)) {
			return -EFAULT;
		}
		if (uevent_type_is_string(f->type) && !has_nul(p + start, size)) {
			return -EFAULT;
		}
	}
	return 0;
}

/* n bytes as a quoted string, up to the first NUL. */
static void put_quoted(struct format_buf *o, const uint8_t *s, size_t n)
{
	format_buf_putc(o, '"');
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			format_buf_putc(o, '\\');
			format_buf_putc(o, (char)s[i]);
		} else if (s[i] >= UEVENT_ASCII_FIRST && s[i] <= UEVENT_ASCII_LAST) {
			format_buf_putc(o, (char)s[i]);
		} else {
			format_buf_putc(o, '\\');
			format_buf_putc(o, 'x');
			format_buf_putc(o, hex_digits[s[i] >> NIBBLE_BITS]);
			format_buf_putc(o, hex_digits[s[i] & NIBBLE_MASK]);
		}
	}
	format_buf_putc(o, '"');
}

static void put_hex(struct format_buf *o, const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		format_buf_putc(o, hex_digits[s[i] >> NIBBLE_BITS]);
		format_buf_putc(o, hex_digits[s[i] & NIBBLE_MASK]);
	}
}

static void put_scalar(struct format_buf *o, const struct uevent_field *f, const uint8_t *p)
{
	uint64_t v = load_le(p + f->offset, f->size);
	uint32_t bits = BYTE_BITS * f->size;

	if (!uevent_type_is_signed(f->type)) {
		format_buf_printf(o, "%llu", (unsigned long long)v);
		return;
	}
	if (bits < BYTE_BITS * sizeof(v) && (v >> (bits - 1) & 1)) {
		v |= ~0ull << bits; /* sign-extend */
	}
	format_buf_printf(o, "%lld", (long long)v);
}

/* The value of one field, or <bad>. */
static void put_value(struct format_buf *o, const struct uevent_field *f, const uint8_t *p,
		      size_t len)
{
	size_t start;
	size_t size;

	if (!field_inside(f, len) || f->type == UEVENT_TYPE_NONE || f->type >= UEVENT_TYPE_LIMIT) {
		format_buf_printf(o, "<bad>");
	} else if (uevent_type_is_scalar(f->type)) {
		put_scalar(o, f, p);
	} else if (f->type == UEVENT_TYPE_CHAR_ARRAY) {
		put_quoted(o, p + f->offset, f->size);
	} else if (!uevent_type_is_dynamic(f->type)) {
		put_hex(o, p + f->offset, f->size); /* unsigned char[N], struct */
	} else if (!locate(f, p, len, &start, &size) ||
		   (uevent_type_is_string(f->type) && !has_nul(p + start, size))) {
		format_buf_printf(o, "<bad>");
	} else if (uevent_type_is_string(f->type)) {
		put_quoted(o, p + start, size);
	} else {
		put_hex(o, p + start, size);
	}
}

int uevent_payload_format(const struct uevent_def *d, const void *payload, size_t len, char *buf,
			  size_t size)
{
	struct format_buf o = format_buf_start(buf, size);

	for (uint32_t i = 0; i < d->nfields && i < UEVENT_FIELDS_MAX; i++) {
		const struct uevent_field *f = &d->field[i];

		if (i) {
			format_buf_putc(&o, ' ');
		}
		format_buf_printf(&o, "%.*s=", UEVENT_NAME_ARG(f->name));
		put_value(&o, f, payload, len);
	}
	return (int)o.len;
}
