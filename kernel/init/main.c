/*
 * main: kmain, the boot CPU's path from the 32-bit entry to the console.
 * One step a line, in dependency order.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/syscall.h"
#include "cap/cspace.h"
#include "console/console.h"
#include "dev/export.h"
#include "init/boot_info.h"
#include "init/options.h"
#include "init/selftest.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "mm/pmm.h"
#include "mm/vmm.h"
#include "mm/zero_page.h"
#include "proc/loader.h"
#include "proc/spawn.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/ktrace.h"
#include "trace/uevent_table.h"

#define SPOOR_VERSION	      "0.1.0"
#define TICK_CHECK_TICKS      3
#define TICK_CHECK_TIMEOUT_MS 2000

void kmain(uint64_t mb2);

/* The CPUs that will run: those the MADT lists, as many as smp= allows. */
static uint32_t trace_cpus(void)
{
	return acpi_madt.ncpus < kopts.smp ? acpi_madt.ncpus : (uint32_t)kopts.smp;
}

/*
 * The root task: init, with the boot capabilities in their well-known
 * slots; the export devices' only when the machine has them.
 */
static void start_init(void)
{
	struct spawn_request req = {
	    .name = "init",
	    .ncaps = 3,
	    .caps = {{.src = 0, .dst = CAP_SLOT_CONSOLE, .rights = CAP_RIGHTS_ALL},
		     {.src = 1, .dst = CAP_SLOT_TRACE_READ, .rights = CAP_RIGHTS_ALL},
		     {.src = 2, .dst = CAP_SLOT_TRACE_CONTROL, .rights = CAP_RIGHTS_ALL}},
	};
	struct cap boot_caps[5] = {
	    {.kind = CAP_KIND_CONSOLE, .rights = CAP_RIGHTS_ALL},
	    {.kind = CAP_KIND_TRACE_READ, .rights = CAP_RIGHT_READ | CAP_RIGHT_GRANT},
	    {.kind = CAP_KIND_TRACE_CONTROL, .rights = CAP_RIGHT_WRITE | CAP_RIGHT_GRANT},
	};
	const uint32_t io_rights = CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT;
	if (export_port()) {
		boot_caps[req.ncaps] = (struct cap){
		    .kind = CAP_KIND_IOPORT, .rights = io_rights, .obj = (void *)export_port()};
		req.caps[req.ncaps] = (struct spawn_cap){
		    .src = req.ncaps, .dst = CAP_SLOT_EXPORT_PORT, .rights = CAP_RIGHTS_ALL};
		req.ncaps++;
	}
	if (export_window()) {
		boot_caps[req.ncaps] = (struct cap){
		    .kind = CAP_KIND_FRAME, .rights = io_rights, .obj = export_window()};
		req.caps[req.ncaps] = (struct spawn_cap){
		    .src = req.ncaps, .dst = CAP_SLOT_EXPORT_WINDOW, .rights = CAP_RIGHTS_ALL};
		req.ncaps++;
	}
	int err = spawn(NULL, &req, boot_caps);

	if (err < 0) {
		panic("cannot start init (error %d): is its module2 line in grub.cfg?", err);
	}
}

static void check_ticking(void)
{
	uint32_t silent = smp_wait_ticking(TICK_CHECK_TICKS, TICK_CHECK_TIMEOUT_MS);

	if (silent) {
		panic("smp: %u of %u cpus took no timer interrupts", silent, ncpus);
	}
	printk("smp: all %u cpus ticking\n", ncpus);
}

/*
 * An application processor's path from the trampoline (smp.c starts it)
 * to its idle loop: the boot CPU's steps that are per CPU.
 */
__attribute__((noreturn)) static void ap_entry(struct cpu *c)
{
	vmm_activate_kernel(); /* the kernel's page tables */
	percpu_init(c);	       /* GDT, TSS and GS */
	idt_load();	       /* exceptions and interrupts */
	syscall_init_cpu();    /* the syscall instruction's entry */
	ttrace_cpu_online(c);  /* its trace ring, before its first event */
	thread_init_idle();    /* this path ends as its idle thread */
	apic_init_cpu();       /* local APIC enabled */
	timer_start_cpu();     /* periodic tick */
	irq_enable();	       /* ... taken from now on */
	smp_cpu_online(c);     /* others may call it now */
	/* A self-test's part on this CPU, if it has one, before it idles. */
	selftest_run_ap(kopts.selftest);
	sched_idle_loop();
}

__attribute__((noreturn)) void kmain(uint64_t mb2)
{
	serial_init();					/* console output from here on */
	percpu_init(&cpus[0]);				/* GDT, TSS and GS of the boot CPU */
	idt_init();					/* exceptions end in a panic block */
	idt_load();					/* ... on this CPU too */
	syscall_init_cpu();				/* the syscall instruction's entry */
	printk("\nSpoor %s (x86_64)\n", SPOOR_VERSION); /* the first banner line */
	multiboot2_parse(mb2);				/* cmdline, memory map, modules, RSDP */
	options_parse(boot_info.cmdline);		/* warns about what it does not know */
	pmm_init(&boot_info);				/* frame allocator; kmalloc works now */
	vmm_init();					/* kernel page tables, full direct map */
	zero_page_init();				/* the frame untouched user memory reads */
	acpi_init(boot_info.rsdp, boot_info.rsdp_len);	/* CPUs, APICs, power-off */
	apic_init(acpi_madt.lapic_phys);		/* local APIC registers */
	cpus[0].apic_id = apic_id();			/* the boot CPU's own id */
	apic_init_cpu();				/* ... enabled */
	ioapic_init();					/* legacy PICs off, device IRQs masked */
	thread_init_idle();				/* kmain ends as this CPU's idle thread */
	sched_init();					/* run queues, the resched IPI */
	timer_calibrate();				/* TSC and LAPIC timer against the PIT */
	ttrace_init(trace_cpus());			/* tracing, from here on if ttrace= */
	export_init();					/* COM2 and the export window, if any */
	uevent_init();					/* user events: status page, ttrace=user */
	timer_start_cpu();				/* periodic tick on this CPU */
	serial_enable_rx_irq();				/* console input by interrupt */
	console_init();					/* ... which wakes console readers */
	irq_enable();					/* ... taken from now on */
	smp_start_aps((uint32_t)kopts.smp, ap_entry);	/* the other CPUs, ticking and idle */

	printk("memory: %lu MiB usable\n", pmm_usable_bytes() >> 20);
	printk("cpus online: %u\n", ncpus);
	printk("tsc: %lu MHz\n", timer_tsc_hz() / 1000000);
	printk("cmdline: %s\n", boot_info.cmdline);
	printk("modules: %u\n", boot_info.nmodules);
	check_ticking();
	loader_init();
	selftest_run(kopts.selftest);
	start_init();
	sched_idle_loop();
}
