/*
 * `trace save [FILTERS] [as NAME]` (abi/traced.h SAVE), and what the
 * verbs that write a file to the host share: the "as NAME" words and
 * what the export channel's errors mean to the person at the shell.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "trace_cmd.h"

#define LOSSES_MAX 512 /* what losses mean: two lines */

#define SAVE_AS "as"

/* The name rule of abi/traced.h's SAVE, checked here to say what is wrong in words. */
static bool save_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= TRACED_SAVE_NAME_MAX || name[0] == '.') {
		return false;
	}
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	       len;
}

/* What a save's losses mean for its filter, as a dump's end says it (abi/traced.h LOSSES). */
static void print_losses(uint64_t events, uint64_t lost, uint64_t outside, uint64_t early)
{
	char text[LOSSES_MAX];
	const struct traced_losses l = {
	    .events = events, .lost = lost, .outside = outside, .early = early};

	traced_losses_format(text, sizeof(text), &l);
	printf("%s", text);
}

bool trace_name_words(const struct trace_verb *verb, int *argc, char **argv, char *name)
{
	bool named = *argc >= 3 && !strcmp(argv[*argc - 2], SAVE_AS);

	/* Any other "as" is misplaced: said so, not read as a filter. */
	for (int i = 1; i < (named ? *argc - 2 : *argc); i++) {
		if (!strcmp(argv[i], SAVE_AS)) {
			printf("trace: '%s' takes one NAME, last (%s; usage: trace %s %s)\n",
			       SAVE_AS, i == *argc - 1 ? "none given" : "more words follow it",
			       verb->name, verb->args);
			return false;
		}
	}
	if (named) {
		if (!save_name_ok(argv[*argc - 1])) {
			printf("trace: bad name '%s' (up to %d letters, digits, '.', '_' or '-', "
			       "not starting with '.')\n",
			       argv[*argc - 1], TRACED_SAVE_NAME_MAX - 1);
			return false;
		}
		strcpy(name, argv[*argc - 1]);
		*argc -= 2;
	}
	return true;
}

void trace_verb_save(const struct trace_verb *verb, int argc, char **argv)
{
	static uint32_t saves; /* names trace-1, trace-2, ... */
	struct traced_save_request req = {0};
	struct traced_save_reply rep;

	if (!trace_name_words(verb, &argc, argv, req.name) ||
	    !trace_filter_words(argc, argv, &req.filter)) {
		return;
	}
	if (!req.name[0]) {
		snprintf(req.name, sizeof(req.name), "trace-%u", ++saves);
	}
	long err = traced_request(TRACED_OP_SAVE, 0, &req, sizeof(req), &rep, sizeof(rep), NULL);
	if (err == -EBUSY) {
		printf("trace: a recording is running (trace record stop ends it); it has the "
		       "export channel\n");
	} else if (!trace_export_failed(err, req.name)) {
		printf("trace: saved %llu events, %llu lost, %llu bytes to %s%s\n",
		       (unsigned long long)rep.events, (unsigned long long)rep.lost,
		       (unsigned long long)rep.bytes, req.name, TTRACE_FILE_SUFFIX);
		print_losses(rep.events, rep.lost, rep.outside, rep.early);
	}
}

bool trace_export_failed(long err, const char *name)
{
	if (err == -ENODEV) {
		printf("trace: no export channel on this machine (make run connects COM2 and the "
		       "export window)\n");
	} else if (err == -ETIMEDOUT) {
		printf("trace: nothing on the host answers the export channel\n");
	} else if (err == -EIO) {
		printf("trace: the host refused %s%s\n", name, TTRACE_FILE_SUFFIX);
	} else if (err == -ENOSPC) {
		printf("trace: the host refused %s%s: its limit of files or bytes for this run is "
		       "reached\n",
		       name, TTRACE_FILE_SUFFIX);
	} else {
		return trace_failed(err);
	}
	return true;
}
