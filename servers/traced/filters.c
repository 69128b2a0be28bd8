/*
 * filters: FILTER, FILTER_CODE and FILTER_TEXT (filters.h). A request is checked
 * whole before the kernel hears of it: every target known and the
 * predicate compiled for every kind, so a bad one changes nothing.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "abi/traced.h"
#include "common/trace_pred_parse.h"
#include "servers/traced/filters.h"

#define IF_WORD	    " if "
#define TARGETS_MAX 256 /* bytes of a request's target list */
#define WHY_MAX	    128
#define CODE_TEXT   "(bytecode)" /* FILTER_TEXT's text for a filter FILTER_CODE set */

/* [traced] The text each kind's filter was set from; "" for none known. */
static char texts[TTRACE_KIND_LIMIT][TTRACE_PRED_TEXT_MAX + 1];

int filters_set(const struct request *req, struct reply *rep)
{
	static struct ttrace_pred_prog progs[TTRACE_KIND_LIMIT];
	char line[TARGETS_MAX + sizeof(IF_WORD) + TTRACE_PRED_TEXT_MAX];
	char why[WHY_MAX];
	uint64_t kinds, cats;

	if (!req->len || req->len >= sizeof(line) || req->arg) {
		return -EINVAL;
	}
	memcpy(line, req->body, req->len);
	line[req->len] = 0;
	if (strlen(line) != req->len) {
		return -EINVAL; /* a NUL inside */
	}
	char *pred = strstr(line, IF_WORD);
	if (pred) {
		*pred = 0;
		pred += strlen(IF_WORD);
	}
	if (strlen(line) >= TARGETS_MAX ||
	    ttrace_pred_targets(line, &kinds, &cats, why, sizeof(why))) {
		return -EINVAL;
	}
	/* each kind compiled with the others it is set on, as ttrace_pred_check() does */
	uint64_t among = kinds & (kinds - 1) ? kinds : 0;
	for (uint16_t k = 1; pred && k < TTRACE_KIND_LIMIT; k++) {
		if (kinds >> k & 1 &&
		    ttrace_pred_compile(pred, k, among, &progs[k], why, sizeof(why))) {
			return -EINVAL;
		}
	}
	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		if (!(kinds >> k & 1)) {
			continue;
		}
		long err = sys_trace_filter(CAP_SLOT_TRACE_CONTROL, k, pred ? progs[k].insn : NULL,
					    pred ? progs[k].n : 0);
		if (err) {
			return (int)err; /* the kinds before keep what they were given */
		}
		strcpy(texts[k], pred ? pred : "");
	}
	rep->result = kinds;
	return 0;
}

int filters_code(const struct request *req, struct reply *rep)
{
	struct traced_filter_code c;

	(void)rep;
	if (req->len != sizeof(c) || req->arg) {
		return -EINVAL;
	}
	memcpy(&c, req->body, sizeof(c));
	if (c.kind >= TTRACE_KIND_LIMIT || c.n > TTRACE_PRED_INSNS_MAX) {
		return -EINVAL;
	}
	/* the kernel checks the program: traced has no say in what it runs */
	long err = sys_trace_filter(CAP_SLOT_TRACE_CONTROL, c.kind, c.insn, c.n);
	if (!err) {
		strcpy(texts[c.kind], c.n ? CODE_TEXT : "");
	}
	return (int)err;
}

int filters_text(const struct request *req, struct reply *rep)
{
	struct traced_filter_text t = {0};

	if (req->len || req->arg >= TTRACE_KIND_LIMIT) {
		return -EINVAL;
	}
	t.len = (uint32_t)strlen(texts[req->arg]);
	memcpy(t.text, texts[req->arg], t.len);
	memcpy(rep->buf, &t, sizeof(t));
	rep->len = sizeof(t);
	return 0;
}
