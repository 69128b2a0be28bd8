/*
 * page: what DUMP, FOLLOW, STRINGS and EVENTS replies share: the checks
 * of the cursor a client sends back, and the head in front of a page.
 */
#include <errno.h>
#include <string.h>

#include "servers/traced/page.h"
#include "servers/traced/request.h"
#include "servers/traced/state.h"

int page_cursor_check(const struct traced_cursor *c)
{
	if (c->magic != TRACED_CURSOR_MAGIC || c->ncpus != traced.ncpus ||
	    c->synced >> traced.ncpus || c->flags & ~(TRACED_CURSOR_FOLLOW | TRACED_CURSOR_FULL)) {
		return -EINVAL;
	}
	for (uint32_t i = traced.ncpus; i < TTRACE_MAX_CPUS; i++) {
		if (c->next[i] || c->end[i]) {
			return -EINVAL;
		}
	}
	return 0;
}

int page_listing_check(const struct traced_cursor *c, uint64_t next_max, uint64_t end_max)
{
	static const struct traced_cursor zero;

	if (!c->magic) {
		return memcmp(c, &zero, sizeof(zero)) ? -EINVAL : 0;
	}
	if (page_cursor_check(c) || c->synced || c->flags || c->events || c->lost || c->skip ||
	    c->outside || c->early || c->next[0] > next_max || c->end[0] > end_max) {
		return -EINVAL;
	}
	for (uint32_t i = 1; i < TTRACE_MAX_CPUS; i++) {
		if (c->next[i] || c->end[i]) {
			return -EINVAL;
		}
	}
	return 0;
}

void page_listing_at(struct traced_cursor *c, uint64_t next)
{
	c->magic = TRACED_CURSOR_MAGIC;
	c->ncpus = traced.ncpus;
	c->next[0] = next;
}

void page_finish(struct reply *rep, const struct traced_cursor *c, bool done, uint32_t len,
		 uint32_t count)
{
	struct traced_dump_reply *head = (struct traced_dump_reply *)rep->buf;

	memset(head, 0, sizeof(*head));
	head->cursor = *c;
	head->flags = done ? TRACED_DUMP_DONE : 0;
	head->len = len;
	head->events = count;
	rep->len = (uint32_t)(sizeof(*head) + len);
	rep->result = head->flags;
}
