/*
 * save: `trace save [FILTERS] [as NAME]` (abi/traced.h SAVE), the events
 * the filters pass written to the host as NAME.spoor in one go.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "servers/init/shell/trace/export.h"
#include "servers/init/shell/trace/save.h"
#include "servers/init/shell/trace/verb.h"

#define LOSSES_MAX 512 /* what losses mean: two lines */

/* What a save's losses mean for its filter, as a dump's end says it (abi/traced.h LOSSES). */
static void print_losses(uint64_t events, uint64_t lost, uint64_t outside, uint64_t early)
{
	char text[LOSSES_MAX];
	const struct traced_losses l = {
	    .events = events, .lost = lost, .outside = outside, .early = early};

	traced_losses_format(text, sizeof(text), &l);
	printf("%s", text);
}

void save_verb(const struct verb *verb, int argc, char **argv)
{
	static uint32_t saves; /* names trace-1, trace-2, ... */
	static struct traced_save_request req;
	struct traced_save_reply rep;

	memset(&req, 0, sizeof(req));
	if (!export_name(verb, &argc, argv, req.name) ||
	    !verb_filters(argc, argv, &req.filter, &req.pred)) {
		return;
	}
	if (!req.name[0]) {
		snprintf(req.name, sizeof(req.name), "trace-%u", ++saves);
	}
	long err = traced_call_save(&req, &rep);
	if (err == -EBUSY) {
		printf("trace: a recording is running (trace record stop ends it); it has the "
		       "export channel\n");
	} else if (!export_failed(err, req.name)) {
		printf("trace: saved %llu events, %llu lost, %llu bytes to %s%s\n",
		       (unsigned long long)rep.events, (unsigned long long)rep.lost,
		       (unsigned long long)rep.bytes, req.name, TTRACE_FILE_SUFFIX);
		print_losses(rep.events, rep.lost, rep.outside, rep.early);
	}
}
