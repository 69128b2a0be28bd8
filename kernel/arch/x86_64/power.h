/*
 * power: turning the machine off, and telling QEMU that something failed.
 */
#ifndef SPOOR_ARCH_POWER_H
#define SPOOR_ARCH_POWER_H

/*
 * Enters ACPI S5 (soft off); QEMU then exits with status 0. If the
 * firmware gives no way to do so, prints why and halts this CPU.
 */
__attribute__((noreturn)) void power_off(void);

/*
 * Writes to QEMU's isa-debug-exit port, so a run with that device exits
 * with a non-zero (odd) status. Does nothing on a machine without it.
 */
void power_report_failure(void);

#endif
