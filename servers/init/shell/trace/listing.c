/*
 * listing: prints a paged text answer of traced (STRINGS, EVENTS, STATS)
 * to its end, or to a Ctrl-C.
 */
#include <stdio.h>
#include <trace_client.h>

#include "servers/init/shell/trace/listing.h"
#include "servers/init/shell/trace/verb.h"

uint64_t listing_print(struct traced_pager *pager)
{
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;
	uint64_t count = 0;

	while (!(flags & TRACED_DUMP_DONE)) {
		if (verb_failed(traced_pager_next(pager, &data, &len, &flags))) {
			break;
		}
		printf("%.*s", (int)len, (const char *)data);
		count += pager->reply.head.events;
		if (verb_interrupted(0)) {
			printf("^C\n");
			break;
		}
	}
	return count;
}
