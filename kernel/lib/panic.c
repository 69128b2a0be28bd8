/*
 * panic: claim the panic, stop the other CPUs, print, halt.
 *
 * Only one CPU prints: the claim is a compare-and-swap on panic_cpu. A CPU
 * that panics while printing its own panic (a fault in the stack walk, say)
 * gives up at once rather than recursing.
 */
#include "lib/panic.h"

#include <stdarg.h>

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/serial.h"
#include "init/options.h"
#include "lib/ksyms.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "trace/flight.h"
#include "trace/ktrace.h"

#define STACK_WALK_DEPTH 8
#define NO_CPU		 (-1)

static int32_t panic_cpu = NO_CPU; /* [a] the CPU printing the panic */

bool panic_in_progress(void)
{
	return __atomic_load_n(&panic_cpu, __ATOMIC_ACQUIRE) != NO_CPU;
}

void panic_begin(void)
{
	irq_disable();
	int32_t me = (int32_t)percpu_current_id();
	int32_t expected = NO_CPU;

	/* acq_rel: pairs with the acquire load in panic_in_progress() */
	if (!__atomic_compare_exchange_n(&panic_cpu, &expected, me, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (expected == me) {
			static const char msg[] = "\nnested panic: halting\n";
			serial_write(msg, sizeof(msg) - 1);
			power_report_failure();
		}
		cpu_halt_forever();
	}
	apic_stop_other_cpus();
	printk_enter_panic_mode();
}

/* A frame pointer is followed only if it points into memory that is mapped. */
static bool frame_readable(uint64_t rbp)
{
	uint64_t image_start = (uintptr_t)_kernel_start;
	uint64_t image_end = (uintptr_t)_kernel_end;
	uint64_t direct_end = DIRECT_MAP_BASE + pmm_phys_limit();

	if (rbp & 7) {
		return false;
	}
	return (rbp >= image_start && rbp + 16 <= image_end) ||
	       (rbp >= DIRECT_MAP_BASE && rbp + 16 <= direct_end);
}

/* One line of the walk: the address, and the function it is in if the symbol table knows. */
static void walk_line(int depth, uint64_t addr)
{
	uint64_t offset;
	const char *name = ksyms_lookup(addr, &offset);

	if (name) {
		printk("  #%d 0x%016lx %s+0x%lx\n", depth, addr, name, offset);
	} else {
		printk("  #%d 0x%016lx\n", depth, addr);
	}
}

void panic_stack_walk(uint64_t rip, uint64_t rbp)
{
	printk("stack walk:\n");
	walk_line(0, rip);
	for (int depth = 1; depth < STACK_WALK_DEPTH && frame_readable(rbp); depth++) {
		const uint64_t *frame = (const uint64_t *)(uintptr_t)rbp;
		if (!frame[1]) {
			break;
		}
		walk_line(depth, frame[1]);
		rbp = frame[0];
	}
}

void panic_finish(void)
{
	ttrace_panic_dump(percpu_current_id());
	/* panic_halt=1 keeps QEMU up, stopped, for make postmortem to dump. */
	if (kopts.panic_halt) {
		printk("system halted; QEMU stays up (panic_halt=1)\n");
	} else {
		printk("system halted\n");
		power_report_failure();
	}
	cpu_halt_forever();
}

void panic(const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	printk("\nKERNEL PANIC on cpu %u: ", percpu_current_id());
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	/* Start at our caller: its return address and its saved frame pointer. */
	const uint64_t *frame = __builtin_frame_address(0);
	panic_stack_walk(frame[1], frame[0]);
	panic_finish();
}
