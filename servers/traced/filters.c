/*
 * filters: FILTER, FILTER_CODE and FILTER_TEXT (filters.h). A request is checked
 * whole before the kernel hears of it: every target known and the
 * predicate compiled for every kind, so a bad one changes nothing.
 *
 * A kind's text is its note in the kernel (struct traced_filter_text, as
 * FILTER_TEXT answers it), cleared before its program changes and written
 * after: a traced that dies between the two leaves no note, so a text
 * shown is always the program's, or none is ("set before traced last
 * started").
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "abi/traced.h"
#include "common/trace_pred_parse.h"
#include "servers/traced/filters.h"
#include "servers/traced/state.h"

#define IF_WORD	    " if "
#define TARGETS_MAX 256 /* bytes of a request's target list */
#define WHY_MAX	    128
#define CODE_TEXT   "(bytecode)" /* FILTER_TEXT's text for a filter FILTER_CODE set */

_Static_assert(sizeof(struct traced_filter_text) <= TTRACE_NOTE_BYTES, "a text is a note");

/* Writes text (NULL: none) as kind's note. */
static void note_set(uint16_t kind, const char *text)
{
	uint8_t note[TTRACE_NOTE_BYTES] = {0};
	struct traced_filter_text t = {.len = text ? (uint32_t)strlen(text) : 0};

	memcpy(t.text, text ? text : "", t.len);
	memcpy(note, &t, sizeof(t));
	/* 0: a known kind and a note of ours; the kernel checks nothing more */
	(void)sys_trace_note(CAP_SLOT_TRACE_CONTROL, TTRACE_NOTE_SET_FILTER, kind, note);
}

/* Sets kind's filter to the n instructions at insn (0: none) and its note to text. */
static long install(uint16_t kind, const struct ttrace_pred_insn *insn, uint32_t n,
		    const char *text)
{
	note_set(kind, NULL);
	long err = sys_trace_filter(CAP_SLOT_TRACE_CONTROL, kind, insn, n);
	if (!err && n) {
		note_set(kind, text);
	}
	return err;
}

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
		long err = install(k, pred ? progs[k].insn : NULL, pred ? progs[k].n : 0, pred);
		if (err) {
			return (int)err; /* the kinds before keep what they were given */
		}
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
	return (int)install((uint16_t)c.kind, c.insn, c.n, CODE_TEXT);
}

int filters_text(const struct request *req, struct reply *rep)
{
	uint8_t note[TTRACE_NOTE_BYTES];
	struct traced_filter_text t = {0};

	if (req->len || req->arg >= TTRACE_KIND_LIMIT) {
		return -EINVAL;
	}
	/* relaxed: a flag word; the note read after it is as old or newer */
	uint64_t kinds = __atomic_load_n(&traced.area.hdr->filter_kinds, __ATOMIC_RELAXED);
	if (kinds >> req->arg & 1 && !sys_trace_note(CAP_SLOT_TRACE_CONTROL, TTRACE_NOTE_GET_FILTER,
						     (uint32_t)req->arg, note)) {
		memcpy(&t, note, sizeof(t));
		t.len = t.len <= TTRACE_PRED_TEXT_MAX ? t.len : 0;
	}
	memcpy(rep->buf, &t, sizeof(t));
	rep->len = sizeof(t);
	return 0;
}
