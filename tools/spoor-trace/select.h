/*
 * select: the events of a file that pass FILTERS (common/trace_filter.h,
 * the words `trace dump` takes, and comm=), as a file of their own, so
 * every subcommand reads the chosen events the one way it reads a whole
 * file (tfile_next()) and the choice is made once, where the events are
 * read. The copy holds the chosen events' slots; its header, aux and
 * ledger are the file's.
 *
 * Losses, as a dump with a filter reports them, in the file's order: a
 * loss on a CPU that cpu= leaves out goes; another stays when the event
 * abi/trace_file.h's LOSS PLACEMENT puts it at (its CPU's next) is in
 * the since=/until= window, or, when its CPU has none after it, when
 * until= is not given: the entries lost may have been any of the
 * chosen. count=N keeps the first N events and ends there; last=N the
 * last N, and when more passed, only the losses after the first of them.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_SELECT_H
#define SPOOR_TOOLS_SPOOR_TRACE_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_filter.h"
#include "common/trace_filter_pred.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/view.h"

/* A file of chosen events: the struct tfile every converter reads, and its slots. */
struct tselect {
	struct tfile f;
	uint8_t *slots;
};

/*
 * Fills *s with the events of v's file that pass flt and pred (flt's
 * predicate as ttrace_filter_pred_compile() made it; NULL: none),
 * decided with v's decoder (comm=, the predicate's comm) and clock; v
 * must be the view of the whole file. Returns 0 or -ENOMEM (then *s
 * holds nothing to free).
 */
int tselect_make(struct tselect *s, struct tview *v, const struct ttrace_filter *flt,
		 const struct ttrace_filter_pred *pred);

void tselect_free(struct tselect *s);

/*
 * Whether event r passes every test of flt but count= and last= (which
 * are positions in a window), and pred (NULL: none), decided with v's
 * decoder (comm=) and clock; in_tree says whether r's pid is tree='s
 * (read only with tree=).
 */
bool tselect_passes(struct tview *v, const struct ttrace_filter *flt,
		    const struct ttrace_filter_pred *pred, const struct ttrace_record *r,
		    bool in_tree);

#endif
