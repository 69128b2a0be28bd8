/*
 * text: the dump's lines (see text.h). The lines describing the dump are
 * traced's (servers/traced/dump.c), spelled here again since traced
 * writes them with its own buffers; their shape is in abi/traced.h.
 */
#include "tools/spoor-trace/text.h"

#include <errno.h>

int text_convert(struct tview *v, FILE *out)
{
	char line[TVIEW_LINE_MAX];
	struct tfile_iter it;
	struct tfile_item item;

	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			fprintf(out, "# lost %llu events on cpu %u\n",
				(unsigned long long)item.lost_count, item.lost_cpu);
			continue;
		}
		size_t len = tview_line(v, &item.rec, line);
		fwrite(line, 1, len, out);
		fputc('\n', out);
	}
	fprintf(out, "# end of dump: %llu events, %llu lost\n", (unsigned long long)v->file->events,
		(unsigned long long)v->file->lost);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
