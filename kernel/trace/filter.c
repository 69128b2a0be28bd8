/*
 * filter: a table of the kinds' filters, each a copy of its lowered
 * program (filter.h says how it is shared). Copies, not pointers to the
 * caller's: nothing is allocated or freed on the way, and a filter can
 * always be set.
 */
#include "trace/filter.h"

#include "trace/pred_record.h"

/* [stop] changed with every other CPU stopped; read with interrupts off. */
static struct ttrace_pred_jumps filters[TTRACE_KIND_LIMIT];
const struct ttrace_pred_jumps *filter_of[TTRACE_KIND_LIMIT];
static uint64_t kinds;

void filter_install(uint16_t kind, const struct ttrace_pred_jumps *j)
{
	pred_record_named(kind, PRED_NAMED_FILTER, j && j->reads_comm);
	if (j) {
		filters[kind] = *j;
		filter_of[kind] = &filters[kind];
		kinds |= 1ull << kind;
	} else {
		filter_of[kind] = NULL;
		kinds &= ~(1ull << kind);
	}
}

uint64_t filter_kinds(void)
{
	return kinds;
}
