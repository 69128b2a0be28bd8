/*
 * export: what the verbs that write a file to the host (`trace save`,
 * `trace record`) share: the "as NAME" words and what the export
 * channel's errors mean to the person at the shell.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_file.h"
#include "servers/init/shell/trace/export.h"
#include "servers/init/shell/trace/verb.h"

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

bool export_name(const struct verb *verb, int *argc, char **argv, char *name)
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

bool export_failed(long err, const char *name)
{
	if (err == -ENODEV) {
		printf("trace: no export channel on this machine (make run connects COM2 and the "
		       "export window)\n");
	} else if (err == -EHOSTDOWN) {
		printf("trace: nothing on the host answers the export channel\n");
	} else if (err == -ETIMEDOUT) {
		/* The request's own wait, not the host's: traced is still at it, or stuck. */
		printf("trace: traced did not answer within %llu s\n",
		       (unsigned long long)(TRACED_TIMEOUT_NS / 1000000000ull));
	} else if (err == -EIO) {
		printf("trace: the host refused %s%s\n", name, TTRACE_FILE_SUFFIX);
	} else if (err == -ENOSPC) {
		printf("trace: the host refused %s%s: its limit of files or bytes for this run is "
		       "reached\n",
		       name, TTRACE_FILE_SUFFIX);
	} else {
		return verb_failed(err);
	}
	return true;
}
