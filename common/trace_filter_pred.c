/*
 * trace_filter_pred: FILTERS' `if PREDICATE` compiled once per request
 * for each kind the filter selects and run over each event
 * (trace_filter_pred.h). Pure code, as common/ is compiled by the
 * kernel, libc and the host.
 */
#include "common/trace_filter_pred.h"

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_names.h"

#define BAD	     "bad filter: "
#define NO_KIND	     "the other filters select no kind"
#define UNKNOWN_NAME "?" /* ttrace_decoder_comm()'s name for an evicted spawn record */

uint64_t ttrace_filter_pred_kinds(const struct traced_filter *f)
{
	uint64_t kinds = 0;

	for (uint32_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (info && !(f->flags & TRACED_F_KINDS && !(f->kinds[k / 64] >> (k % 64) & 1)) &&
		    !(f->flags & TRACED_F_CATS && !(info->category & f->cats))) {
			kinds |= 1ull << k;
		}
	}
	return kinds;
}

/* The parser's why behind "bad filter: ", as `trace on ... if` says it. */
static int refuse(char *why, size_t why_size, const char *parser_why)
{
	format_snprintf(why, why_size, BAD "%s", parser_why);
	return -EINVAL;
}

int ttrace_filter_pred_check(const char *text, const struct traced_filter *f, char *why,
			     size_t why_size)
{
	char said[TTRACE_PRED_WHY_MAX];
	uint64_t kinds = ttrace_filter_pred_kinds(f);

	if (!kinds) {
		return refuse(why, why_size, NO_KIND);
	}
	return ttrace_pred_check(text, kinds, said, sizeof(said)) ? refuse(why, why_size, said) : 0;
}

int ttrace_filter_pred_compile(const char *text, const struct traced_filter *f,
			       struct ttrace_filter_pred *p, char *why, size_t why_size)
{
	char said[TTRACE_PRED_WHY_MAX];
	uint64_t kinds = ttrace_filter_pred_kinds(f);
	/* one kind alone is strict, several lenient: as ttrace_pred_check() and `trace on` */
	uint64_t among = kinds & (kinds - 1) ? kinds : 0;

	p->kinds = 0;
	if (!text || !*text) {
		return 0;
	}
	if (!kinds) {
		return refuse(why, why_size, NO_KIND);
	}
	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		if (kinds >> k & 1 &&
		    ttrace_pred_compile(text, k, among, &p->prog[k], said, sizeof(said))) {
			return refuse(why, why_size, said);
		}
	}
	p->kinds = kinds;
	return 0;
}

bool ttrace_filter_pred_keeps(const struct ttrace_filter_pred *p, uint16_t kind,
			      const struct ttrace_pred_event *ev)
{
	if (!p->kinds) {
		return true;
	}
	if (kind >= TTRACE_KIND_LIMIT || !(p->kinds >> kind & 1)) {
		return false;
	}
	return ttrace_pred_eval(p->prog[kind].insn, p->prog[kind].n, ev);
}

/* comm as the kernel's filters see it: none for pid 0, none a reader cannot know. */
static const char *known_comm(uint32_t pid, const char *comm)
{
	return pid && comm && __builtin_strcmp(comm, UNKNOWN_NAME) ? comm : NULL;
}

bool ttrace_filter_pred_keeps_record(const struct ttrace_filter_pred *p,
				     const struct ttrace_record *r, const char *comm)
{
	const struct ttrace_pred_event ev = {.data = r->data,
					     .pid = r->pid,
					     .tid = r->tid,
					     .cpu = r->cpu,
					     .ctx = r->ctx,
					     .comm = known_comm(r->pid, comm)};

	return ttrace_filter_pred_keeps(p, r->kind, &ev);
}

bool ttrace_filter_pred_keeps_entry(const struct ttrace_filter_pred *p,
				    const struct ttrace_entry *e, const char *comm)
{
	const struct ttrace_pred_event ev = {.data = e->data,
					     .pid = e->pid,
					     .tid = e->tid,
					     .cpu = e->cpu,
					     .ctx = TTRACE_CTX_OF(e->ctx),
					     .comm = known_comm(e->pid, comm)};

	return ttrace_filter_pred_keeps(p, e->kind, &ev);
}
