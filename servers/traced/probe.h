/*
 * probe: traced's kernel-probe operations (abi/trace_probe.h), PROBE_ON
 * and PROBE_OFF: the request goes to the kernel as the client sent it,
 * and the category func is on while a probe is set.
 */
#ifndef SPOOR_TRACED_PROBE_H
#define SPOOR_TRACED_PROBE_H

#include "servers/traced/request.h"

/*
 * PROBE_ON: the number of probes set afterwards in result, or on -EINVAL
 * the kernel's reason (TTRACE_PROBE_WHY_*); 0 or -E*.
 */
int probe_on(const struct request *req, struct reply *rep);

/* PROBE_OFF: the number of probes still set in result; 0 or -E*. */
int probe_off(const struct request *req, struct reply *rep);

/* The number of kernel probes set now. */
int probe_count(void);

#endif
