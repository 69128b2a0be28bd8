/*
 * strings: `trace strings [SET]`, the aux buffer's strings, of one set
 * (an aux tag) or all, and the names of the sets.
 */
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/trace_names.h"
#include "servers/init/shell/trace/listing.h"
#include "servers/init/shell/trace/strings.h"
#include "servers/init/shell/trace/verb.h"

#define SETS_MAX 160 /* the names of the sets, in one line */

void strings_sets(char *buf, size_t size, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t tag = 1; tag < TTRACE_AUX_TAG_LIMIT && n < size; tag++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s", tag > 1 ? sep : "",
				      ttrace_aux_tag_name(tag, true));
	}
}

void strings_verb(const struct verb *verb, int argc, char **argv)
{
	static struct traced_pager pager;
	char known[SETS_MAX];
	uint32_t tag = 0;

	if (argc > 2) {
		verb_usage(verb);
		return;
	}
	while (argc == 2 && ++tag < TTRACE_AUX_TAG_LIMIT &&
	       strcmp(argv[1], ttrace_aux_tag_name(tag, true))) {
	}
	if (tag == TTRACE_AUX_TAG_LIMIT) {
		strings_sets(known, sizeof(known), " ");
		printf("trace: unknown strings '%s' (known: %s)\n", argv[1], known);
		return;
	}
	traced_pager_strings(&pager, tag);
	printf("# %llu strings\n", (unsigned long long)listing_print(&pager));
}
