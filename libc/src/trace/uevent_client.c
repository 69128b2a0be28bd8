/*
 * uevent_client: registering user events with traced and mapping their
 * status page (trace_client.h). The page is one for every event, mapped
 * once.
 */
#include <errno.h>
#include <string.h>
#include <trace_client.h>

static const volatile uint8_t *status_page; /* mapped on the first registration */

#define STR_(x) #x
#define STR(x)	STR_(x)

const char *trace_uevent_why(long err)
{
	if (err == -EDQUOT) {
		return "this program and what it spawned already made " STR(
		    TRACED_UEVENT_TREE_MAX) " live user events, their quota (unregister some, or "
					    "end the programs that hold them)";
	}
	if (err == -ENOSPC) {
		return "no user-event id is free (of " STR(UEVENT_MAX) ", the last " STR(
		    TRACED_UEVENT_CONTROL_IDS) " are kept for the shell)";
	}
	return strerror((int)-err);
}

long trace_uevent_register(const char *desc, struct trace_uevent *ev)
{
	uint64_t id;
	uint32_t cap;
	long err = traced_call_register(desc, &cap, &id);

	if (err) {
		return err;
	}
	if (!status_page) {
		long page = sys_trace_map((int)cap, TTRACE_MAP_UEVENT_STATUS, NULL);
		if (page < 0) {
			sys_cap_delete((int)cap);
			return page;
		}
		status_page = (const volatile uint8_t *)page;
	}
	ev->index = cap;
	ev->id = (uint32_t)id;
	ev->status = status_page;
	return 0;
}

long trace_uevent_release(struct trace_uevent *ev)
{
	long err = sys_cap_delete((int)ev->index);

	ev->index = -1;
	return err;
}
