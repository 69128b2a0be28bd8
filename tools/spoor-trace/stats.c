/*
 * stats: the shell's answers on a saved file (see stats.h). The events
 * are folded in the file's order, which is the dump's (time, per CPU
 * merged), each from its head slot as traced folds it from the rings.
 */
#include "tools/spoor-trace/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/trace_stats.h"

#define TEXT_MAX 32768 /* traced's: an answer is cut where the shell's would be */

int stats_write(struct tview *v, const struct traced_stats_request *r, FILE *out)
{
	struct ttrace_stats *st = malloc(sizeof(*st));
	char *text = malloc(TEXT_MAX);
	struct tfile_iter it;
	struct tfile_item item;

	if (!st || !text) {
		free(st);
		free(text);
		return -ENOMEM;
	}
	ttrace_stats_start(st, &v->hdr);
	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			ttrace_stats_lost(st, item.lost_count);
		} else {
			struct ttrace_entry e;
			memcpy(&e, v->file->data + item.offset, sizeof(e));
			ttrace_stats_event(st, &e);
		}
	}
	ttrace_stats_finish(st);
	struct format_buf b = format_buf_start(text, TEXT_MAX);
	if (r->form == TRACED_STATS_HIST) {
		ttrace_stats_print_hist(st, &b, r, "");
	} else {
		ttrace_stats_print(st, &b, &r->filter, r->form == TRACED_STATS_KV, &v->dec, "");
	}
	fputs(text, out);
	free(st);
	free(text);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
