/*
 * probe: kernel probes (abi/trace_probe.h), breakpoints at instruction
 * boundaries of the kernel's text that record a probe event and step the
 * instruction they replaced out of line.
 *
 * A HIT. The CPU takes #BP (an interrupt gate: interrupts off, on the
 * stack it was on) at the int3; probe_breakpoint() records the event and
 * returns to the probe's copy of the instruction (probe_xol.S) with the
 * trap flag set and interrupts still masked, so the step is the only
 * thing the CPU does before #DB brings it to probe_step(), which puts rip
 * (and a call's return address) right, gives back the flags' IF and TF
 * and goes on after the original instruction. From the int3 to the end
 * of the step a CPU never has interrupts on, so it can never be stopped
 * (smp_stop_others()) in the middle of a hit: every set and removal of a
 * probe happens with no CPU inside one, and a copy is never in use when
 * its slot is given to another probe. NMI handlers are not probed (the
 * table's NMI flag), so nothing comes in between but a nested hit that
 * the recording itself reaches, which runs its own whole step first.
 *
 * A CPU that finds no probe at its breakpoint (one removed meanwhile,
 * which the stops above rule out, but cheap to answer) runs the original
 * instruction again if the byte is no longer int3.
 *
 * Lock order: probe_mutex, then smp_stop_others()' own, then aux_lock.
 */
#ifndef SPOOR_TRACE_PROBE_H
#define SPOOR_TRACE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace_probe.h"

struct trap_frame;

/*
 * TTRACE_PROBE_ON: sets the probe *spec describes; TTRACE_PROBE_OFF:
 * removes the probe spec->name names, or every one for an empty name.
 * Returns the number of probes set afterwards, or -EINVAL with spec->why
 * set (TTRACE_PROBE_WHY_*), -ENOENT for an OFF that names no probe,
 * -ECPUSTUCK when a CPU did not stop; each changes nothing. Thread
 * context, interrupts on, no spinlock held; may sleep.
 */
int probe_set(uint32_t op, struct ttrace_probe_spec *spec);

/* What *info says of probe slot i: 0, or -ENOENT past the last slot. May sleep. */
int probe_info(uint32_t i, struct ttrace_probe_info *info);

/*
 * #BP from the kernel, f its frame: true when it was a probe's (the hit
 * is recorded and the step begun, or a removed probe's instruction is
 * run again), false when not (a kernel bug: the caller panics).
 * Interrupts off.
 */
bool probe_breakpoint(struct trap_frame *f);

/* #DB from the kernel: true when it ends (or continues) a probe's step. Interrupts off. */
bool probe_step(struct trap_frame *f);

#endif
