/*
 * restart: restartable ranges of the kernel's code, in the way of Linux's
 * restartable sequences, for the kernel's own stops. A range [start, end)
 * is code that publishes nothing before end (no store another CPU or an
 * interrupt could see) and changes none of the registers it reads: run
 * again from start, it does what it would have done. A CPU stopped
 * inside one while another changes kernel code (smp_stop_others()) goes
 * on from start, so it runs the range again through whatever the stopper
 * changed there (a static branch at start, static_branch.h), instead of
 * finishing what it began before the change. A CPU stopped at end or past
 * it goes on where it was. The tracepoints' straight paths are such
 * ranges, up to their reservation (trace/tracepoint.h).
 *
 * Only the stop restarts: a CPU can be stopped only with interrupts on,
 * and the kernel is never preempted, so the code the stop interrupted is
 * the only code of that CPU inside a range (an interrupt that itself
 * interrupted a range runs with interrupts masked and has returned).
 */
#ifndef SPOOR_ARCH_RESTART_H
#define SPOOR_ARCH_RESTART_H

#include <stdint.h>

struct trap_frame;

/*
 * One entry of the section restart_ranges, as RESTART_RANGE() lays it out:
 * addresses as offsets from the field that holds them. The section's name
 * is a C identifier, so a host build that links it gets the linker's
 * __start_restart_ranges and __stop_restart_ranges; the kernel's bounds
 * are kernel.ld's.
 */
struct restart_range {
	int32_t start; /* the range's first instruction, where it restarts */
	int32_t end;   /* the address after its last instruction */
};

_Static_assert(sizeof(struct restart_range) == 8, "the .long line below");

/* The entry for the range between the asm labels start and end, as asm. */
#define RESTART_RANGE(start, end)                                                                  \
	".pushsection restart_ranges, \"a\"\n\t"                                                   \
	".balign 4\n\t"                                                                            \
	".long " start " - ., " end " - .\n\t"                                                     \
	".popsection"

/*
 * A stopped CPU, in its stop's interrupt handler, f the frame of the code
 * the stop interrupted: if that is kernel code inside a range, past its
 * start, it goes on from the start.
 */
void restart_fixup(struct trap_frame *f);

#endif
