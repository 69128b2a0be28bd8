/*
 * trap: where every interrupt and exception lands (from isr.S). Interrupts
 * go to the handler registered for their vector; exceptions in the kernel
 * are kernel bugs and end in a panic block.
 */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "init/selftest.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "mm/memlayout.h"
#include "mm/usercopy.h"
#include "mm/uvm.h"
#include "proc/oom.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "sched/watchdog.h"
#include "trace/ktrace.h"
#include "trace/nest_test.h"
#include "trace/probe.h"
#include "trace/stop_test.h"

#define PF_PRESENT  (1u << 0) /* SDM 3A 4.7: page-fault error code */
#define PF_WRITE    (1u << 1)
#define PF_USER	    (1u << 2)
#define PF_RESERVED (1u << 3)
#define PF_FETCH    (1u << 4)

extern irq_handler_fn irq_handlers[256];

static const char *const exception_names[NUM_EXCEPTIONS][2] = {
    [0] = {"divide error", "#DE"},
    [1] = {"debug", "#DB"},
    [2] = {"non-maskable interrupt", "NMI"},
    [3] = {"breakpoint", "#BP"},
    [4] = {"overflow", "#OF"},
    [5] = {"bound range exceeded", "#BR"},
    [6] = {"invalid opcode", "#UD"},
    [7] = {"device not available", "#NM"},
    [8] = {"double fault", "#DF"},
    [9] = {"coprocessor segment overrun", "#CSO"},
    [10] = {"invalid TSS", "#TS"},
    [11] = {"segment not present", "#NP"},
    [12] = {"stack-segment fault", "#SS"},
    [13] = {"general protection fault", "#GP"},
    [14] = {"page fault", "#PF"},
    [16] = {"x87 floating-point error", "#MF"},
    [17] = {"alignment check", "#AC"},
    [18] = {"machine check", "#MC"},
    [19] = {"SIMD floating-point error", "#XM"},
    [20] = {"virtualization exception", "#VE"},
    [21] = {"control protection", "#CP"},
    [28] = {"hypervisor injection", "#HV"},
    [29] = {"VMM communication", "#VC"},
    [30] = {"security exception", "#SX"},
};

static __attribute__((noreturn)) void trap_panic(const struct trap_frame *f)
{
	const char *name = exception_names[f->vector][0];
	const char *mnemonic = exception_names[f->vector][1];
	uint64_t cr2 = read_cr2();

	panic_begin();
	printk("\nKERNEL PANIC on cpu %u: %s (%s, vector %lu)\n", percpu_current_id(),
	       name ? name : "reserved exception", mnemonic ? mnemonic : "?", f->vector);
	printk("  err=0x%lx rip=0x%016lx cr2=0x%016lx rsp=0x%016lx\n", f->error, f->rip, cr2,
	       f->rsp);
	if (f->vector == EXC_PAGE_FAULT) {
		printk("  page fault: %s, %s, %s mode%s\n",
		       f->error & PF_FETCH   ? "fetch"
		       : f->error & PF_WRITE ? "write"
					     : "read",
		       f->error & PF_PRESENT ? "protection" : "not present",
		       f->error & PF_USER ? "user" : "kernel",
		       f->error & PF_RESERVED ? ", reserved bit set" : "");
	}
	printk("  rax=0x%016lx rbx=0x%016lx rcx=0x%016lx rdx=0x%016lx\n", f->rax, f->rbx, f->rcx,
	       f->rdx);
	printk("  rsi=0x%016lx rdi=0x%016lx rbp=0x%016lx r8 =0x%016lx\n", f->rsi, f->rdi, f->rbp,
	       f->r8);
	printk("  r9 =0x%016lx r10=0x%016lx r11=0x%016lx r12=0x%016lx\n", f->r9, f->r10, f->r11,
	       f->r12);
	printk("  r13=0x%016lx r14=0x%016lx r15=0x%016lx rflags=0x%lx\n", f->r13, f->r14, f->r15,
	       f->rflags);
	printk("  cs=0x%lx ss=0x%lx\n", f->cs, f->ss);
	panic_stack_walk(f->rip, f->rbp);
	if (f->vector == EXC_PAGE_FAULT) {
		/*
		 * So the flight recorder below ends with the fault. Recorded
		 * after the block is out: if recording faults too, that is a
		 * nested panic, which halts, not a loop of faults.
		 */
		percpu_set_trace_ctx(TTRACE_CTX_TRAP);
		TTRACE(mem_pf_kernel, cr2, f->rip, f->error);
	}
	panic_finish();
}

static bool from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

static unsigned fault_access(uint64_t error)
{
	return (error & PF_WRITE ? FAULT_WRITE : 0) | (error & PF_FETCH ? FAULT_EXEC : 0);
}

/*
 * A user program's exception: a page fault it may be owed (demand paging,
 * copy on write), or the end of its process with one line saying why.
 */
static void user_exception(struct trap_frame *f, uint64_t cr2)
{
	struct process *p = process_current();
	struct uvm_fault_info info = {0};

	percpu_set_trace_ctx(TTRACE_CTX_TRAP);
	irq_enable();
	if (f->vector == EXC_PAGE_FAULT) {
		TTRACE(mem_pf_entry, cr2, f->rip, f->error);
		__atomic_fetch_add(&p->page_faults, 1, __ATOMIC_RELAXED);
		int err = uvm_fault(&p->vm, cr2, fault_access(f->error), &info);
		TTRACE(mem_pf, cr2, f->rip, f->error, err ? TTRACE_PF_KILLED : info.outcome);
		if (!err) {
			return;
		}
		if (info.no_memory) {
			if (oom_fault(p, cr2, f->rip)) {
				TTRACE(proc_fault, p->pid, f->vector, cr2, f->rip);
			}
			return; /* retried, or the tree is on its way out */
		}
		printk("pid %u (%s) killed: %s at 0x%lx (%s, %s) rip=0x%lx\n", p->pid, p->name,
		       info.what, cr2,
		       f->error & PF_FETCH   ? "fetch"
		       : f->error & PF_WRITE ? "write"
					     : "read",
		       f->error & PF_PRESENT ? "protection" : "not present", f->rip);
	} else {
		const char *name = exception_names[f->vector][0];
		printk("pid %u (%s) killed: %s rip=0x%lx\n", p->pid, p->name,
		       name ? name : "reserved exception", f->rip);
	}
	TTRACE(proc_fault, p->pid, f->vector, f->vector == EXC_PAGE_FAULT ? cr2 : 0, f->rip);
	process_exit(p, EXIT_FAULT(f->vector));
}

/*
 * A page fault inside the kernel's user copy loop: resolve it like the
 * user's own access would be, or make the copy return -EFAULT (-ENOMEM
 * when the page was legal but no frame could be had for it).
 */
static bool usercopy_fault(struct trap_frame *f, uint64_t cr2)
{
	struct uvm_fault_info info;

	if (f->vector != EXC_PAGE_FAULT || !usercopy_contains(f->rip) || cr2 >= USER_TOP) {
		return false;
	}
	if (this_cpu()->usercopy_nofault) {
		/* A stack walk: nothing faulted in, nothing traced, -EFAULT. */
		f->rip = usercopy_fixup_rip(false);
		return true;
	}
	if (f->rflags & RFLAGS_IF) {
		irq_enable();
	}
	TTRACE(mem_pf_entry, cr2, f->rip, f->error);
	__atomic_fetch_add(&process_current()->page_faults, 1, __ATOMIC_RELAXED);
	int err = uvm_fault(&process_current()->vm, cr2, fault_access(f->error), &info);
	TTRACE(mem_pf, cr2, f->rip, f->error, err ? TTRACE_PF_FIXUP : info.outcome);
	if (err) {
		f->rip = usercopy_fixup_rip(info.no_memory);
	}
	return true;
}

void trap_dispatch(struct trap_frame *f);

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector < NUM_EXCEPTIONS) {
		/* The NMI that panic_begin() sends: stop here, quietly. */
		if (f->vector == EXC_NMI && panic_in_progress()) {
			cpu_halt_forever();
		}
		/* The NMI the lockup detector sends for this CPU's state: answer, go on. */
		if (f->vector == EXC_NMI && watchdog_nmi(f)) {
			return;
		}
		/* selftest=nmigs's, taken with the user's GS base in the kernel */
		if (f->vector == EXC_NMI && selftest_nmi()) {
			return;
		}
		/* A kernel probe's breakpoint, or the step that follows it (trace/probe.h). */
		if (!from_user(f) && ((f->vector == EXC_BREAKPOINT && probe_breakpoint(f)) ||
				      (f->vector == EXC_DEBUG && probe_step(f)))) {
			return;
		}
		/* selftest=tracenest stepping through a tracepoint: the nested events, or a stop */
		if (f->vector == EXC_DEBUG && !from_user(f) &&
		    (ttrace_nest_step() || ttrace_stop_step())) {
			return;
		}
		uint64_t cr2 = read_cr2(); /* before anything can fault again */
		if (from_user(f) && f->vector != EXC_NMI && f->vector != EXC_MACHINE_CHECK) {
			user_exception(f, cr2);
			sched_return_to_user();
			return;
		}
		if (!usercopy_fault(f, cr2)) {
			trap_panic(f);
		}
		return;
	}
	irq_handler_fn fn = irq_handlers[f->vector];
	/* the handler's events are the interrupt's; the interrupted code's come back after */
	uint8_t ctx = percpu_trace_ctx();
	percpu_set_trace_ctx(TTRACE_CTX_IRQ);
	TTRACE(irq_entry, f->vector);
	if (fn) {
		fn(f);
	} else if (f->vector != VECTOR_SPURIOUS) {
		printk("trap: unexpected interrupt vector %lu on cpu %u\n", f->vector,
		       percpu_current_id());
	}
	TTRACE(irq_exit, f->vector);
	percpu_set_trace_ctx(ctx);
	/* Spurious interrupts are not in service, so they take no EOI (SDM 3A 11.9). */
	if (f->vector != VECTOR_SPURIOUS) {
		apic_eoi();
	}
	if (from_user(f)) {
		sched_return_to_user();
	}
}
