/*
 * pred: a request's predicate compiled and run (pred.h). The program
 * names the process by the name the decoder finds for the event's pid,
 * as a dump's comm= prints it.
 */
#include <errno.h>
#include <string.h>

#include "servers/traced/pred.h"
#include "servers/traced/state.h"

#define WHY_MAX 256

int pred_request(const struct traced_pred *p, const struct traced_filter *f,
		 const struct ttrace_filter_pred **out)
{
	/* [traced] one request at a time: the predicate compiled last, and what it was made of */
	static struct ttrace_filter_pred compiled;
	static char compiled_text[TTRACE_PRED_TEXT_MAX + 1];
	static uint64_t compiled_kinds;
	char text[TTRACE_PRED_TEXT_MAX + 1];
	char why[WHY_MAX];

	*out = NULL;
	if (p->reserved || p->len > TTRACE_PRED_TEXT_MAX) {
		return -EINVAL;
	}
	if (!p->len) {
		return 0;
	}
	memcpy(text, p->text, p->len);
	text[p->len] = 0;
	if (strlen(text) != p->len) {
		return -EINVAL; /* a NUL inside */
	}
	/* A dump's pages ask again with the same predicate: compiled once, for the first. */
	uint64_t kinds = ttrace_filter_pred_kinds(f);
	if (!compiled.kinds || kinds != compiled_kinds || strcmp(text, compiled_text)) {
		if (ttrace_filter_pred_compile(text, f, &compiled, why, sizeof(why))) {
			return -EINVAL; /* compiled.kinds is 0: nothing is kept of it */
		}
		strcpy(compiled_text, text);
		compiled_kinds = kinds;
	}
	*out = &compiled;
	return 0;
}

bool pred_keeps_record(const struct ttrace_filter_pred *p, const struct ttrace_record *r)
{
	return ttrace_filter_pred_keeps_record(p, r, ttrace_decoder_comm(&traced.decoder, r->pid));
}

bool pred_keeps_entry(const struct ttrace_filter_pred *p, const struct ttrace_entry *e)
{
	return ttrace_filter_pred_keeps_entry(p, e, ttrace_decoder_comm(&traced.decoder, e->pid));
}
