/*
 * power: ACPI S5 through the PM1 control registers found by acpi.c.
 */
#include "arch/x86_64/power.h"

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"

#define DEBUG_EXIT_PORT	  0xf4 /* QEMU -device isa-debug-exit default iobase */
#define PM1_SLP_TYP_SHIFT 10   /* ACPI 6.4 4.8.3.2.1: PM1 control register */
#define PM1_SLP_EN	  (1u << 13)
#define POWER_OFF_WAIT_US 500000 /* the chipset may take a moment to act */

void power_off(void)
{
	const struct acpi_power *p = &acpi_power;

	if (p->pm1a_cnt) {
		irq_disable();
		outw(p->pm1a_cnt, (uint16_t)(p->s5_typ_a << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN);
		if (p->pm1b_cnt) {
			outw(p->pm1b_cnt,
			     (uint16_t)(p->s5_typ_b << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN);
		}
		timer_delay_us(POWER_OFF_WAIT_US);
	}
	printk("power: ACPI power-off is not available; halting\n");
	cpu_halt_forever();
}

void power_report_failure(void)
{
	outb(DEBUG_EXIT_PORT, 1);
}
