/*
 * filter: a table of the kinds' filters, each a copy of its program
 * (filter.h says how it is shared). Copies, not pointers: nothing is
 * allocated or freed on the way, and a filter can always be set.
 */
#include "trace/filter.h"

#include "abi/trace.h"
#include "lib/string.h"
#include "trace/tracepoint.h"

struct filter {
	uint32_t n; /* instructions; 0: no filter */
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
};

/* [stop] changed with every other CPU stopped; read with interrupts off. */
static struct filter filters[TTRACE_KIND_LIMIT];
uint64_t filter_kind_bits;

void filter_install(uint16_t kind, const struct ttrace_pred_insn *p, uint32_t n)
{
	struct filter *f = &filters[kind];

	f->n = n;
	if (n) {
		memcpy(f->insn, p, n * sizeof(*p));
		filter_kind_bits |= 1ull << kind;
	} else {
		filter_kind_bits &= ~(1ull << kind);
	}
}

uint64_t filter_kinds(void)
{
	return filter_kind_bits;
}

bool filter_keeps(uint16_t kind, const struct ttrace_pred_event *ev)
{
	return ttrace_pred_eval(filters[kind].insn, filters[kind].n, ev);
}
