/*
 * profile: the sampling profiler (abi/trace.h TTRACE_OP_PROFILE). A CPU
 * being profiled runs its periodic timer at the profiler's rate instead
 * of TIMER_HZ; every interrupt records a prof_sample of what it
 * interrupted, with its stack, and the scheduler's tick still comes
 * TIMER_HZ times a second among them.
 */
#ifndef SPOOR_TRACE_PROFILE_H
#define SPOOR_TRACE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

/*
 * The timer interrupt on this CPU, after the trace wake-up's check:
 * follows a change of rate (the profiler's, else the wake-up's, wake.h),
 * records the sample, and returns whether the scheduler's tick is due
 * (always, while the timer runs at TIMER_HZ).
 */
bool profile_tick(const struct trap_frame *f);

/*
 * Profiles the CPUs of mask (bit c for CPU c) at hz, TTRACE_PROFILE_HZ_MIN..
 * TTRACE_PROFILE_HZ_MAX, and no other; hz 0 stops it everywhere. Each
 * CPU takes the change at its next tick. -EINVAL for a bad rate or CPU.
 */
int profile_set(uint32_t hz, uint32_t mask);

#endif
