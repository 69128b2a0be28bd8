/*
 * func: see func.h. The kernel checks the patterns and changes nothing on
 * an error; the category changes after the sites, so a failure of the
 * category's change leaves the sites changed and says so by its error
 * (the client's `trace on func` then repeats it).
 */
#include <errno.h>
#include <stdbool.h>
#include <spoor.h>

#include "abi/trace.h"
#include "servers/traced/func.h"
#include "servers/traced/probe.h"

/* The kernel's op with the request's patterns, then the category as the count wants it. */
static int change(uint32_t op, const struct request *req, struct reply *rep)
{
	long traced = sys_trace_func(CAP_SLOT_TRACE_CONTROL, op, req->body, req->len);

	if (traced < 0) {
		return (int)traced;
	}
	/* The category's events are the kernel probes' too: it stays on while one is set. */
	bool on = traced || probe_count();
	long mask = sys_trace_control(CAP_SLOT_TRACE_CONTROL,
				      on ? TTRACE_OP_ENABLE : TTRACE_OP_DISABLE, TTRACE_CAT(FUNC));
	if (mask < 0) {
		return (int)mask;
	}
	rep->result = (uint64_t)traced;
	return 0;
}

int func_on(const struct request *req, struct reply *rep)
{
	return req->len ? change(TTRACE_FUNC_ON, req, rep) : -EINVAL;
}

int func_off(const struct request *req, struct reply *rep)
{
	return change(TTRACE_FUNC_OFF, req, rep);
}

int graph_on(const struct request *req, struct reply *rep)
{
	if (!req->len || req->arg > TTRACE_GRAPH_DEPTH) {
		return -EINVAL;
	}
	return change(TTRACE_FUNC_GRAPH_ON | (uint32_t)req->arg << TTRACE_FUNC_DEPTH_SHIFT, req,
		      rep);
}

int graph_off(const struct request *req, struct reply *rep)
{
	return change(TTRACE_FUNC_GRAPH_OFF, req, rep);
}
