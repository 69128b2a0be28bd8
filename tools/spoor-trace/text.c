/*
 * text: the dump's lines (see text.h), each made by common/trace_format
 * as traced makes it, but the function graph's, which graph.h makes.
 */
#include "tools/spoor-trace/text.h"

#include <errno.h>

#include "common/trace_format.h"
#include "tools/spoor-trace/graph.h"

int text_convert(struct tview *v, FILE *out)
{
	char line[TTRACE_LINE_MAX];
	struct tfile_iter it;
	struct tfile_item item;

	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			ttrace_format_lost(line, sizeof(line), item.lost_cpu, item.lost_count);
			fputs(line, out);
			continue;
		}
		size_t len = graph_event(&item.rec) ? graph_line(v, &item.rec, line)
						    : tview_line(v, &item.rec, line);
		fwrite(line, 1, len, out);
		fputc('\n', out);
	}
	ttrace_format_end(line, sizeof(line), v->file->events, v->file->lost);
	fputs(line, out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
