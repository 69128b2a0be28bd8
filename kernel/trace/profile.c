/*
 * profile: the profiler's side of the timer interrupt, and the rate the
 * timer runs at (the profiler's, the trace wake-up's, or TIMER_HZ). Only
 * the CPU itself reprograms its LAPIC timer, so a new rate is left in its
 * profile_hz and taken at its next interrupt; the scheduler's tick is
 * then counted out of the faster interrupts by a phase that gains
 * TIMER_HZ at each and gives the tick when it reaches the rate.
 */
#include "trace/profile.h"

#include "abi/errno.h"
#include "abi/trace.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "sched/thread.h"
#include "trace/emit.h"
#include "trace/ktrace.h"
#include "trace/stack.h"
#include "trace/wake.h"

#define CS_RPL 3u /* the privilege level of the interrupted code (SDM 3A 5.5) */

/* A prof_sample of what f interrupted: its ip, whose it is, and its stack. */
static void sample(const struct trap_frame *f)
{
	const struct cpu *c = this_cpu();
	bool user = f->cs & CS_RPL;
	uint64_t data[2] = {f->rip, user ? TTRACE_PROF_USER : TTRACE_PROF_KERNEL};

	if (c->current == c->idle) {
		/* idle: where in the idle loop says nothing */
		data[1] = TTRACE_PROF_IDLE;
		ttrace_emit_stacked(TTRACE_KIND_prof_sample, data, 2, NULL);
		return;
	}
	struct stack_start s = {
	    .kernel_ip = user ? 0 : f->rip,
	    .kernel_fp = user ? 0 : f->rbp,
	    .user = user ? f : stack_user_regs(),
	};
	ttrace_emit_stacked(TTRACE_KIND_prof_sample, data, 2, &s);
}

bool profile_tick(const struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	/* relaxed: the rate orders nothing; a late change is taken at the next tick */
	uint32_t want = __atomic_load_n(&c->profile_hz, __ATOMIC_RELAXED);
	/*
	 * Without the profiler, the rate the trace wake-up asks for while a
	 * recording streams (wake.h), else the scheduler's; with it, the
	 * profiler's, at each of whose interrupts the wake-up is checked too.
	 */
	uint32_t wake = ttrace_wake_hz();
	uint32_t rate = want ? want : wake ? wake : TIMER_HZ;

	if (rate != c->profile_rate) {
		c->profile_rate = rate;
		c->profile_phase = 0;
		timer_set_rate(rate);
	}
	if (want && static_branch(TTRACE_KMASK_prof_sample)) {
		sample(f);
	}
	c->profile_phase += TIMER_HZ;
	if (c->profile_phase < c->profile_rate) {
		return false;
	}
	c->profile_phase -= c->profile_rate;
	return true;
}

int profile_set(uint32_t hz, uint32_t mask)
{
	uint32_t online = (uint32_t)((1ull << ncpus) - 1);

	if (hz &&
	    (hz < TTRACE_PROFILE_HZ_MIN || hz > TTRACE_PROFILE_HZ_MAX || !mask || mask & ~online)) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		/* relaxed: each CPU takes its rate at its next tick (profile_tick()) */
		__atomic_store_n(&cpus[i].profile_hz, mask >> i & 1 ? hz : 0, __ATOMIC_RELAXED);
	}
	return 0;
}
