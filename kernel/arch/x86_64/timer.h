/*
 * timer: the clocks. At boot the TSC and the LAPIC timer are calibrated
 * against PIT channel 2; afterwards every CPU takes a periodic LAPIC timer
 * interrupt TIMER_HZ times a second, and the TSC gives time since boot.
 */
#ifndef SPOOR_ARCH_TIMER_H
#define SPOOR_ARCH_TIMER_H

#include <stdint.h>

#define TIMER_HZ 100

/* Boot CPU, once, with the LAPIC up: measures the TSC and LAPIC rates. */
void timer_calibrate(void);

/* Starts the periodic tick on the calling CPU. */
void timer_start_cpu(void);

/*
 * Runs the calling CPU's periodic interrupt at hz (TIMER_HZ..10000) instead: the profiler's
 * rate, or the trace wake-up's while a recording runs (trace/profile.c chooses).
 */
void timer_set_rate(uint32_t hz);

uint64_t timer_tsc_hz(void);

/* The TSC when time 0 of timer_now_ns() was. */
uint64_t timer_boot_tsc(void);

/* Nanoseconds since timer_calibrate(). */
uint64_t timer_now_ns(void);

/* Busy-waits at least us microseconds (TSC based). */
void timer_delay_us(uint64_t us);

#endif
