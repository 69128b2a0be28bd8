/*
 * wake: the trace wake-up (see wake.h): the binding, the arming, the
 * check each CPU's timer interrupt makes of its own ring, and the rate
 * it asks of that timer.
 *
 * Lock order: wake_lock, then ipc_lock (ipc_signal() under it). The tick
 * takes wake_lock only after its exchange disarmed the wake-up, so at
 * most once an arming.
 */
#include "trace/wake.h"

#include <stdbool.h>

#include "arch/x86_64/percpu.h"
#include "ipc/ipc.h"
#include "lib/spinlock.h"
#include "trace/trigger.h"

static struct spinlock wake_lock = SPINLOCK_INIT;
static struct endpoint *bound; /* [wake_lock] the endpoint signalled; never NULL once armed */
static uint64_t armed_mark;    /* [a] the watermark in entries; 0: disarmed */
static uint64_t armings;       /* [a] how many armings there were */

/* Each CPU's lease of the faster rate (ttrace_wake_hz()), its own alone. */
static struct {
	uint64_t armings; /* the armings it last saw */
	uint32_t left;	  /* interrupts left at TTRACE_WAKE_HZ */
} lease[MAX_CPUS];

void ttrace_wake_arm(struct endpoint *ep, uint64_t mark)
{
	endpoint_get(ep, 0);
	uint64_t flags = spin_lock_irqsave(&wake_lock);
	struct endpoint *old = bound;

	bound = ep;
	/* release: the binding first; pairs with the acquire exchange in ttrace_wake_tick() */
	__atomic_store_n(&armed_mark, mark, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&wake_lock, flags);
	/* relaxed: a CPU that sees it an interrupt late runs faster from the next one */
	__atomic_fetch_add(&armings, 1, __ATOMIC_RELAXED);
	if (old) {
		endpoint_put(old, 0); /* outside wake_lock: the last put frees it */
	}
}

/* Entries of ring r past what the reader consumed or a clear discarded. */
static uint64_t unread(const struct ttrace_ring *r)
{
	/* acquire: pairs with the writer's reservation (abi/trace.h W1) and a clear's release */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_ACQUIRE);
	uint64_t keep = __atomic_load_n(&r->state->clear_index, __ATOMIC_ACQUIRE);
	/* relaxed: a tail published late only delays the signal to a later tick */
	uint64_t tail = __atomic_load_n(r->tail, __ATOMIC_RELAXED);

	keep = tail > keep ? tail : keep;
	return head > keep ? head - keep : 0;
}

/*
 * A SAVE trigger fired (trigger.h): tells the endpoint bound, armed or
 * not, with TTRACE_WAKE_TRIGGER (abi/trace_pred.h). Without a binding
 * yet, the mark stays for the tick after one is made.
 */
static void tell_saves(void)
{
	spin_lock(&wake_lock);
	if (bound && trigger_saves_take()) {
		ipc_signal(bound, TTRACE_WAKE_TRIGGER);
	}
	spin_unlock(&wake_lock);
}

void ttrace_wake_tick(void)
{
	if (__builtin_expect(trigger_saves_pending(), 0)) {
		tell_saves();
	}
	/* relaxed: an arming seen a tick late is signalled a tick late */
	uint64_t mark = __atomic_load_n(&armed_mark, __ATOMIC_RELAXED);

	if (__builtin_expect(!mark, 1)) {
		return;
	}
	const struct ttrace_ring *r = &this_cpu()->trace_ring;
	if (unread(r) <= mark) {
		return;
	}
	/*
	 * Only the CPU whose exchange disarms it signals: one signal an
	 * arming. acquire: pairs with the release store in ttrace_wake_arm(),
	 * so the binding it made is the one seen below.
	 */
	if (!__atomic_compare_exchange_n(&armed_mark, &mark, 0, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		return;
	}
	spin_lock(&wake_lock);
	ipc_signal(bound, 1ull << r->cpu);
	spin_unlock(&wake_lock);
}

uint32_t ttrace_wake_hz(void)
{
	struct cpu *c = this_cpu();
	/* relaxed: orders nothing, see ttrace_wake_arm() */
	uint64_t now = __atomic_load_n(&armings, __ATOMIC_RELAXED);

	if (now != lease[c->id].armings) {
		lease[c->id].armings = now;
		lease[c->id].left = TTRACE_WAKE_LEASE;
	} else if (lease[c->id].left) {
		lease[c->id].left--;
	}
	return lease[c->id].left ? TTRACE_WAKE_HZ : 0;
}
