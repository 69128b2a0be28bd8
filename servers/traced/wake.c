/*
 * wake: the recording's wait on the kernel's trace wake-up (see wake.h).
 *
 * The kernel counts a ring's unread entries from the reader's tail, the
 * drop-mode tail of the reader page, which the recording publishes here
 * in every mode: in overwrite mode the writers ignore it, and in drop
 * mode it is what a streaming reader is meant to publish (abi/trace.h,
 * DROP MODE), so the writers keep what the recording has not taken yet.
 *
 * The kernel signals once an arming, from some CPU's timer tick, and
 * checks a level: traced arms again before every wait, after its tails,
 * so a ring that passed the watermark before the arming wakes it at the
 * next tick, and a signal that comes while traced is busy waits on its
 * endpoint for the next receive. None is lost.
 */
#include "servers/traced/wake.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "servers/traced/state.h"

#define WAKE_POLL_NS 5000000ull /* the wait without the kernel's wake-up: the old tick */

uint64_t wake_wait_ns(const struct traced_cursor *c, uint64_t watermark)
{
	static bool refused;
	uint64_t half = traced.area.hdr->ring_entries / 2;

	for (uint32_t i = 0; i < traced.ncpus; i++) {
		/* relaxed: traced is the tail's only writer */
		uint64_t tail = __atomic_load_n(traced.ring[i].tail, __ATOMIC_RELAXED);
		if (c->next[i] > tail) {
			ttrace_ring_publish_tail(&traced.ring[i], c->next[i]);
		}
	}
	watermark = watermark > half ? half : watermark;
	long err =
	    sys_trace_wake(CAP_SLOT_TRACE_CONTROL, CAP_SLOT_SERVICE, watermark ? watermark : 1);
	if (!err) {
		return WAKE_FALLBACK_NS;
	}
	if (!refused) {
		printf("traced: the kernel refused the trace wake-up (%s): polling every 5 ms\n",
		       strerror((int)-err));
		refused = true;
	}
	return WAKE_POLL_NS;
}

bool wake_signalled(const struct ipc_regs *m, const struct ipc_extra *x)
{
	return x->sender_pid == 0 && IPC_INFO_LABEL(m->info) == IPC_SIGNAL_LABEL;
}
