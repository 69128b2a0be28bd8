/*
 * fields: event classes and typed field values (see fields.h). Kind
 * arguments come from the kind table's args (common/trace_names.h), user
 * event fields from their definition, string values from the text's own
 * formatters: trace_format's rules for aux strings (view.c), and
 * uevent_payload_format() for payload strings and bytes.
 */
#include "tools/spoor-trace/fields.h"

#include <stdio.h>
#include <string.h>

#include "common/trace_format.h"
#include "common/trace_names.h"
#include "common/uevent_payload.h"
#include "common/uevent_types.h"

/* The payload of user event rec into buf (UEVENT_PAYLOAD_MAX bytes); its length, or -1 if over. */
static int user_payload(const struct ttrace_record *rec, uint8_t *buf)
{
	uint32_t len = UEVENT_WORD0_LEN(rec->data[0]);

	if (len > UEVENT_PAYLOAD_MAX) {
		return -1;
	}
	memcpy(buf, &rec->data[1], UEVENT_PAYLOAD_MAX);
	return (int)len;
}

void tfields_classify(struct tview *v, const struct ttrace_record *rec, struct tclass *c)
{
	const struct ttrace_kind_info *k = ttrace_kind_info(rec->kind);

	memset(c, 0, sizeof(*c));
	c->kind = rec->kind;
	if (!k) {
		c->type = TCLASS_UNKNOWN;
		snprintf(c->name, sizeof(c->name), "kind_%u", rec->kind);
		return;
	}
	if (rec->kind != TTRACE_KIND_user) {
		c->type = TCLASS_KIND;
		snprintf(c->name, sizeof(c->name), "%s", k->name);
		return;
	}
	uint32_t id = UEVENT_WORD0_ID(rec->data[0]);
	uint32_t gen = UEVENT_WORD0_GEN(rec->data[0]);
	const struct uevent_def *def = ttrace_decoder_uevent(&v->dec, id, gen);
	uint8_t payload[UEVENT_PAYLOAD_MAX];
	int len = user_payload(rec, payload);

	if (def && len >= 0 && !uevent_payload_check(def, payload, (size_t)len)) {
		c->type = TCLASS_USER;
		c->ukey = UEVENT_AUX_ID(id, gen);
		c->def = def;
		snprintf(c->name, sizeof(c->name), "user:%.*s", UEVENT_NAME_ARG(def->name));
		return;
	}
	c->type = TCLASS_USER_RAW;
	snprintf(c->name, sizeof(c->name), "%s", k->name);
}

static struct tfield *add(struct tfields *out, const char *name, size_t name_len, uint32_t type,
			  uint32_t bits)
{
	struct tfield *f = &out->f[out->n++];

	memset(f, 0, sizeof(*f));
	name_len = name_len < TFIELD_NAME_MAX ? name_len : TFIELD_NAME_MAX;
	memcpy(f->name, name, name_len);
	f->name[name_len] = '\0';
	f->type = type;
	f->bits = bits;
	return f;
}

static void kind_fields(struct tview *v, const struct tclass *c, const struct ttrace_record *rec,
			struct tfields *out)
{
	const char *spec = ttrace_kind_info(c->kind)->args;
	struct ttrace_arg arg;

	for (uint32_t n = 0; n < TTRACE_EVENT_WORDS_MAX && out->n + 2 <= TFIELDS_MAX &&
			     ttrace_arg_next(&spec, &arg) == 1;
	     n++) {
		uint64_t w = rec ? rec->data[n] : 0;
		struct tfield *f;

		switch (arg.format) {
		case 'x':
			add(out, arg.name, arg.name_len, TFIELD_HEX, 64)->value = w;
			break;
		case 'd':
			f = add(out, arg.name, arg.name_len, TFIELD_SIGNED, 64);
			f->value = w;
			f->values = arg.values;
			break;
		case 's':
			f = add(out, arg.name, arg.name_len, TFIELD_TEXT, 0);
			if (rec) {
				ttrace_format_arg_string(f->text, sizeof(f->text), rec, w, &v->dec);
			}
			break;
		case 'k':
			f = add(out, arg.name, arg.name_len, TFIELD_TEXT, 0);
			if (rec) {
				ttrace_format_arg_code(f->text, sizeof(f->text), w, &v->dec);
			}
			break;
		case 'y': {
			size_t len = 0;
			const char *name = rec ? ttrace_decoder_syscall(&v->dec, w, &len) : NULL;

			add(out, arg.name, arg.name_len, TFIELD_UNSIGNED, 64)->value = w;
			f = add(out, "name", 4, TFIELD_TEXT, 0);
			snprintf(f->text, sizeof(f->text), "%.*s", name ? (int)len : 0,
				 name ? name : "");
			break;
		}
		default:
			f = add(out, arg.name, arg.name_len, TFIELD_UNSIGNED, 64);
			f->value = w;
			f->values = arg.values;
			break;
		}
	}
}

/* What the text shows for field i of d, without "name=" and the quotes of a string. */
static void payload_text(const struct uevent_def *d, uint32_t i, const uint8_t *payload, size_t len,
			 char *out, size_t size)
{
	struct uevent_def one;
	char buf[TFIELD_TEXT_MAX + TFIELD_NAME_MAX + 4];

	memset(&one, 0, sizeof(one));
	one.nfields = 1;
	one.fixed_size = d->fixed_size;
	one.field[0] = d->field[i];
	uevent_payload_format(&one, payload, len, buf, sizeof(buf));
	const char *s = buf + strnlen(d->field[i].name, sizeof(d->field[i].name)) + 1;
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	snprintf(out, size, "%.*s", (int)n, s);
}

static void user_fields(const struct tclass *c, const struct ttrace_record *rec,
			struct tfields *out)
{
	const struct uevent_def *d = c->def;
	int len = rec ? user_payload(rec, out->payload) : 0;

	if (!rec) {
		memset(out->payload, 0, sizeof(out->payload));
	}
	for (uint32_t i = 0; i < d->nfields && i < UEVENT_FIELDS_MAX; i++) {
		const struct uevent_field *uf = &d->field[i];
		size_t nlen = strnlen(uf->name, sizeof(uf->name));
		struct tfield *f;

		if (uevent_type_is_scalar(uf->type) && uf->size >= 1 && uf->size <= 8) {
			uint32_t bits = 8u * uf->size;
			uint64_t v = 0;
			for (uint32_t b = 0; rec && b < uf->size && uf->offset + b < (uint32_t)len;
			     b++) {
				v |= (uint64_t)out->payload[uf->offset + b] << (8 * b);
			}
			bool sign = uevent_type_is_signed(uf->type);
			if (sign && bits < 64 && (v >> (bits - 1) & 1)) {
				v |= ~0ull << bits;
			}
			f = add(out, uf->name, nlen, sign ? TFIELD_SIGNED : TFIELD_UNSIGNED, bits);
			f->value = v;
		} else if (!uevent_type_is_string(uf->type) && !uevent_type_is_dynamic(uf->type) &&
			   (uint32_t)uf->offset + uf->size <= UEVENT_PAYLOAD_MAX) {
			f = add(out, uf->name, nlen, TFIELD_BYTES, 0);
			f->nbytes = uf->size;
			f->bytes = out->payload + uf->offset;
		} else {
			f = add(out, uf->name, nlen, TFIELD_TEXT, 0);
			if (rec) {
				payload_text(d, i, out->payload, (size_t)len, f->text,
					     sizeof(f->text));
			}
		}
	}
}

static void raw_user_fields(const struct ttrace_record *rec, struct tfields *out)
{
	uint64_t w0 = rec ? rec->data[0] : 0;
	uint32_t len = UEVENT_WORD0_LEN(w0);
	uint32_t words = len > UEVENT_PAYLOAD_MAX ? TTRACE_EVENT_WORDS_MAX - 1 : (len + 7) / 8;

	add(out, "event", 5, TFIELD_UNSIGNED, 32)->value = UEVENT_WORD0_ID(w0);
	add(out, "gen", 3, TFIELD_UNSIGNED, 32)->value = UEVENT_WORD0_GEN(w0);
	add(out, "len", 3, TFIELD_UNSIGNED, 32)->value = len;
	struct tfield *f = add(out, "data", 4, TFIELD_TEXT, 0);
	size_t at = 0;
	for (uint32_t n = 0; rec && n < words && at < sizeof(f->text); n++) {
		int k = snprintf(f->text + at, sizeof(f->text) - at, "%s0x%llx", n ? "," : "",
				 (unsigned long long)rec->data[1 + n]);
		at += k > 0 ? (size_t)k : 0;
	}
}

void tfields_get(struct tview *v, const struct tclass *c, const struct ttrace_record *rec,
		 struct tfields *out)
{
	out->n = 0;
	switch (c->type) {
	case TCLASS_KIND:
		kind_fields(v, c, rec, out);
		break;
	case TCLASS_USER:
		user_fields(c, rec, out);
		break;
	case TCLASS_USER_RAW:
		raw_user_fields(rec, out);
		break;
	default:
		for (uint32_t n = 0; n < TTRACE_HEAD_WORDS; n++) {
			char name[4];
			snprintf(name, sizeof(name), "d%u", n);
			add(out, name, strlen(name), TFIELD_HEX, 64)->value =
			    rec ? rec->data[n] : 0;
		}
		break;
	}
}
