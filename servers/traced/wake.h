/*
 * wake: how traced's recording waits for the rings to fill: on the
 * kernel's trace wake-up (abi/trace.h, THE WAKE-UP), a signal on traced's
 * own endpoint that ends its wait for a request once some CPU's ring has
 * more than a watermark of entries past what the recording has taken,
 * with a long timeout as a fallback. So the drain follows the rings, not
 * a polling tick.
 */
#ifndef SPOOR_TRACED_WAKE_H
#define SPOOR_TRACED_WAKE_H

#include <spoor.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/traced.h"

/* How long a wait lasts when no ring passes the watermark: the fallback. */
#define WAKE_FALLBACK_NS 500000000ull

/*
 * Before a wait: publishes c's positions as the reader's tails (they only
 * move forward: a follower ahead keeps its own), then arms the wake-up on
 * traced's endpoint with watermark entries per CPU (at most half a ring).
 * Returns the timeout the wait takes: WAKE_FALLBACK_NS, or a 5 ms poll
 * should the kernel refuse the wake-up (said once on the console).
 */
uint64_t wake_wait_ns(const struct traced_cursor *c, uint64_t watermark);

/* Whether the message m that a receive with x returned is the kernel's wake-up. */
bool wake_signalled(const struct ipc_regs *m, const struct ipc_extra *x);

#endif
