/*
 * probe: see probe.h. The kernel checks the request and changes nothing
 * on an error; the category changes after the probe is set, so a failure
 * of the category's change leaves the probe set and says so by its error.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "abi/trace.h"
#include "servers/traced/probe.h"

int probe_on(const struct request *req, struct reply *rep)
{
	struct ttrace_probe_spec spec;

	if (req->len != sizeof(spec) || req->arg) {
		return -EINVAL;
	}
	memcpy(&spec, req->body, sizeof(spec));
	long probes = sys_trace_probe(CAP_SLOT_TRACE_CONTROL, TTRACE_PROBE_ON, &spec);
	if (probes < 0) {
		rep->result = probes == -EINVAL ? spec.why : 0;
		return (int)probes;
	}
	long mask = sys_trace_control(CAP_SLOT_TRACE_CONTROL, TTRACE_OP_ENABLE, TTRACE_CAT(FUNC));
	if (mask < 0) {
		return (int)mask;
	}
	rep->result = (uint64_t)probes;
	return 0;
}

int probe_off(const struct request *req, struct reply *rep)
{
	struct ttrace_probe_spec spec = {0};

	if (req->len >= sizeof(spec.name)) {
		return -EINVAL;
	}
	memcpy(spec.name, req->body, req->len);
	long probes = sys_trace_probe(CAP_SLOT_TRACE_CONTROL, TTRACE_PROBE_OFF, &spec);
	if (probes < 0) {
		return (int)probes;
	}
	rep->result = (uint64_t)probes;
	return 0;
}

int probe_count(void)
{
	struct ttrace_probe_info info;
	int n = 0;

	for (uint32_t i = 0; !sys_probe_info(i, &info); i++) {
		n += info.addr != 0;
	}
	return n;
}
