/*
 * lttng_probe: the LTTng-UST 2.13 tracepoint provider of ringbench. Three
 * events of one class, the same payload as a Spoor event of five words
 * (pid, tid, kind, ctx, data[5]: with LTTng's compact event header, 64
 * bytes a record, like a ring slot); each is enabled in at most one
 * session, so an event is recorded once:
 *   spoor_bench:discard   the discard-mode session
 *   spoor_bench:snapshot  the snapshot (overwrite-mode) session
 *   spoor_bench:disabled  no session: a disabled tracepoint
 * bench/lttng_probe.c instantiates the probes; loops.c holds the call
 * sites. The multiple-inclusion dance is LTTng's (lttng-ust(3)).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER spoor_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "bench/lttng_probe.h"

#if !defined(SPOOR_BENCH_LTTNG_PROBE_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SPOOR_BENCH_LTTNG_PROBE_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* LTTng's macros read best as LTTng writes them. */
/* clang-format off */
/* cppcheck-suppress unknownMacro ; defined by <lttng/tracepoint.h>, a system header */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(spoor_bench, record,
	LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint16_t, kind, uint8_t, ctx,
			  const uint64_t *, data),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, pid, pid)
		lttng_ust_field_integer(uint32_t, tid, tid)
		lttng_ust_field_integer(uint16_t, kind, kind)
		lttng_ust_field_integer(uint8_t, ctx, ctx)
		lttng_ust_field_integer(uint64_t, d0, data[0])
		lttng_ust_field_integer(uint64_t, d1, data[1])
		lttng_ust_field_integer(uint64_t, d2, data[2])
		lttng_ust_field_integer(uint64_t, d3, data[3])
		lttng_ust_field_integer(uint64_t, d4, data[4])
	)
)

#define SPOOR_BENCH_ARGS                                                                           \
	LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint16_t, kind, uint8_t, ctx,              \
			  const uint64_t *, data)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(spoor_bench, record, spoor_bench, discard, SPOOR_BENCH_ARGS)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(spoor_bench, record, spoor_bench, snapshot, SPOOR_BENCH_ARGS)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(spoor_bench, record, spoor_bench, disabled, SPOOR_BENCH_ARGS)
/* clang-format on */

#endif

#include <lttng/tracepoint-event.h>
