/*
 * graph: see graph.h. The roots are checked as trace func's patterns are
 * (func.h), then traced asks the kernel.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "servers/init/console.h"
#include "servers/init/shell/trace/func.h"
#include "servers/init/shell/trace/graph.h"

/* The line after a change: what the return stacks and the guard kept from the graph so far. */
static void counts(void)
{
	struct ttrace_func_info info = {0};

	sys_func_info(0, &info);
	printf("# %u calls past the depth not recorded; %llu entries missed\n", info.overflowed,
	       (unsigned long long)info.missed);
}

/* A last word depth=N into *depth (1 to TTRACE_GRAPH_DEPTH): false, having said why, if it is
 * wrong. */
static bool depth_of(const char *word, uint64_t *depth)
{
	char *end;
	long n = strtol(word + strlen("depth="), &end, 10);

	if (end == word + strlen("depth=") || *end || n < 1 || n > TTRACE_GRAPH_DEPTH) {
		printf("trace: bad depth '%s' (depth=N, N from 1 to %d)\n", word,
		       TTRACE_GRAPH_DEPTH);
		return false;
	}
	*depth = (uint64_t)n;
	return true;
}

void graph_verb(const struct verb *verb, int argc, char **argv)
{
	char words[LINE_MAX];
	uint64_t roots = 0, depth = 0;

	if (argc < 2 || (!strcmp(argv[1], "off") && argc != 2)) {
		verb_usage(verb);
		return;
	}
	if (!strcmp(argv[1], "off")) {
		if (!verb_failed(traced_call_graph_off())) {
			printf("trace: graph off\n");
			counts();
		}
		return;
	}
	if (!strncmp(argv[argc - 1], "depth=", strlen("depth="))) {
		if (argc == 2) {
			verb_usage(verb);
			return;
		}
		if (!depth_of(argv[argc - 1], &depth)) {
			return;
		}
		argc--;
	}
	if (!func_patterns(argc - 1, argv + 1, true, words, sizeof(words))) {
		return;
	}
	long err = traced_call_graph_on(depth, words, &roots);
	if (err == -EINVAL || err == -ENOENT) {
		printf("trace: the kernel refused the patterns '%s'\n", words);
	} else if (err == -EBUSY) {
		printf("trace: kernel functions are traced (trace func off first)\n");
	} else if (!verb_failed(err)) {
		printf("trace: graph of %llu kernel functions and all they call\n",
		       (unsigned long long)roots);
		counts();
	}
}
