/*
 * record: `trace record [CATS] [FILTERS] [as NAME]` and `trace record stop`: a
 * recording streamed to the host while the run goes on (abi/traced.h
 * RECORD, REC_STOP). CATS, when given, are turned on for the recording
 * and those it turned on go off again at its stop, as `trace run` does.
 * Also the recording's line of `trace status`.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "servers/init/shell/trace/export.h"
#include "servers/init/shell/trace/record.h"
#include "servers/init/shell/trace/verb.h"

#define STOP_WORD "stop"

static uint64_t added; /* the categories the running recording turned on */

/* Events a second over the recording's time so far (or its whole time, once stopped). */
static uint64_t rate(const struct traced_record_status *r)
{
	uint64_t end = r->ended_ns ? r->ended_ns : (uint64_t)sys_clock_ns();
	uint64_t ms = end > r->started_ns ? (end - r->started_ns) / 1000000 : 0;

	return ms ? r->events * 1000 / ms : 0;
}

static void print_totals(const char *what, const struct traced_record_status *r)
{
	printf("%s %s%s: %llu events, %llu bytes, %llu lost, %llu events/s\n", what, r->name,
	       TTRACE_FILE_SUFFIX, (unsigned long long)r->events, (unsigned long long)r->bytes,
	       (unsigned long long)r->lost, (unsigned long long)rate(r));
}

void record_status(void)
{
	struct traced_record_status r;

	if (traced_call_rec_status(&r) || !r.name[0]) {
		return; /* none yet: no line */
	}
	print_totals(r.active ? "recording:" : "last recording:", &r);
	if (r.error) {
		printf("recording: stopped early: %s\n", strerror(-r.error));
	}
}

static void stop(void)
{
	struct traced_record_status r;

	/* Off before the last drain: what they would write after the stop is not the recording's.
	 */
	if (added) {
		traced_call_disable(added, NULL);
		added = 0;
	}
	long err = traced_call_rec_stop(&r);
	if (err == -ENOENT) {
		printf("trace: nothing is recording\n");
		return;
	}
	if (!err) {
		print_totals("trace: recorded", &r);
		return;
	}
	/*
	 * An error's reply carries nothing: the recording's status has its
	 * name once traced has ended it (early, when the host refused a chunk
	 * or stopped answering; or at this stop). Its totals are what traced
	 * sent, not what the host kept, so they are not given as the file's.
	 */
	struct traced_record_status last = {0};
	bool ended = !traced_call_rec_status(&last) && last.name[0] && !last.active;
	export_failed(err, last.name);
	if (ended) {
		printf(
		    "trace: recording %s%s ended early: the file ends at the last chunk the host "
		    "took\n",
		    last.name, TTRACE_FILE_SUFFIX);
	}
}

void record_verb(const struct verb *verb, int argc, char **argv)
{
	static uint32_t records; /* names record-1, record-2, ... */
	struct traced_save_request req = {0};
	struct traced_record_status r;
	struct traced_status st;
	char why[WHY_MAX];
	uint64_t cats = 0;

	if (argc == 2 && !strcmp(argv[1], STOP_WORD)) {
		stop();
		return;
	}
	if (!export_name(verb, &argc, argv, req.name)) {
		return;
	}
	/* CATS first, if the first word reads as categories; the rest are filters. */
	bool has_cats = argc > 1 && !traced_categories_parse(argv[1], &cats, why, sizeof(why));
	if (has_cats) {
		argv[1] = argv[0];
	}
	if (!verb_filters(argc - has_cats, argv + has_cats, &req.filter, NULL)) {
		return;
	}
	if (!req.name[0]) {
		snprintf(req.name, sizeof(req.name), "record-%u", ++records);
	}
	if (verb_failed(traced_call_status(&st))) {
		return;
	}
	if (!(st.mask | cats)) {
		printf("trace: nothing is enabled to record (trace on CATS first, or trace record "
		       "CATS)\n");
		return;
	}
	uint64_t adding = cats & ~st.mask;
	if (adding && verb_failed(traced_call_enable(adding, NULL))) {
		return;
	}
	long err = traced_call_record(&req, &r);
	if (err) {
		if (adding) {
			traced_call_disable(adding, NULL);
		}
		if (err == -EBUSY) {
			printf(
			    "trace: a recording is running already (trace status shows it; trace "
			    "record stop ends it)\n");
		} else {
			export_failed(err, req.name);
		}
		return;
	}
	added = adding;
	printf("trace: recording to %s%s (trace record stop ends it)\n", req.name,
	       TTRACE_FILE_SUFFIX);
}
