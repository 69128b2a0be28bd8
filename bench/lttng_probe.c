/*
 * lttng_probe: instantiates the probes of bench/lttng_probe.h, linked
 * statically into ringbench as lttng-ust(3) describes; LTTng's own code,
 * so it is built with ordinary host flags (bench/bench.mk).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "bench/lttng_probe.h"
