/*
 * options: the kernel command-line options, typed. Parsed once at boot;
 * read-only afterwards.
 *
 *   smp=N          start at most N CPUs (1..8; default: all the MADT lists)
 *   selftest=KIND  after boot, run one self-test: pagefault, gpf, divide
 *                  and ud raise that exception in the kernel (a panic
 *                  block), doublefault faults with a broken stack (the
 *                  IST stack catches it); tlb checks cross-CPU TLB
 *                  shootdown, heap checks kmalloc/kfree, tracebench
 *                  measures what a tracepoint costs (make bench),
 *                  deadlock deadlocks the last two CPUs (needs smp=3 or
 *                  more) for the lockup detector, tracewedge wedges the
 *                  last CPU inside a write to its ring (needs smp=2),
 *                  nmigs takes an NMI with the user's GS base in the
 *                  kernel (isr.S), masked keeps cpu 1 masked nearly
 *                  always, across host stalls (needs smp=2)
 *   ttrace=CATS    categories traced from boot: a comma list of mem sched
 *                  syscall ipc irq proc user test, or all
 *   ttrace.echo=CATS  categories whose events the kernel also prints on
 *                  the console as it records them (the list as ttrace=)
 *   ttrace.ring_kb=N  KiB of trace ring per CPU (4..65536, a power of
 *                  two; default 1024)
 *   ttrace.aux_kb=N   KiB of aux string ring (4..65536, a power of two;
 *                  default 1024)
 *   ttrace.watchdog=S  lockup detection: a CPU that has not scheduled or
 *                  gone back to user mode for S seconds is reported on the
 *                  console with every CPU's state and the flight recorder
 *                  (0..3600, 0 off; default 10; kernel/sched/watchdog.h)
 *   ttrace.watchdog_panic=1  the report ends in a panic (default 0: go on)
 *   panic_halt=1   a panic halts the machine and leaves QEMU running (no
 *                  isa-debug-exit), so its memory can still be dumped:
 *                  make postmortem reads the trace from it (default 0)
 *   inject=KIND    a fault the system tests provoke where the real one is
 *                  rare (INJECT_KINDS below); default none
 */
#ifndef SPOOR_INIT_OPTIONS_H
#define SPOOR_INIT_OPTIONS_H

#include <stdint.h>

#include "init/selftest.h"

#define TTRACE_OPTION_MAX 96

/*
 * The faults inject= provokes, in one list (options.c makes the words):
 *   apstart  the first application processor is never sent its start-up
 *            IPIs, so its start fails as a dead CPU's would (smp.c)
 *   aplate   the first application processor, once it runs its own
 *            code, holds until the boot CPU's wait for its start has run
 *            out, as a vCPU a loaded host does not run for a while would
 *            (smp.c)
 *   latenmi  the last CPU takes the lockup detector's NMI only after the
 *            report stopped waiting for it (watchdog.c)
 *   wakeclaim  a server that replies and waits for its next call in one
 *            generic reply_recv, to a caller pinned to another CPU, waits
 *            before waking that caller until a call takes it off its CPU
 *            (up to a second), then lets the claimer's fast path get well
 *            under way: the fast call lands inside the wake-up every time
 *            rather than now and then (ipc.c, ipctest wakerace)
 *   recwedge an arming of the trace wake-up (a recording's wait) wedges
 *            the last CPU inside a write to its ring, as
 *            selftest=tracewedge does at boot, once, when that CPU runs
 *            its idle thread: a write that never completes inside a
 *            recording's range (sys_trace.c, wedge_test.c)
 *   calstall two of the timer calibration's five PIT countdowns are read
 *            late, as by a boot CPU whose vCPU a loaded host leaves unrun
 *            for a while: the first only once its count has run out (a
 *            window near zero), the second only after a further whole
 *            countdown (a window twice as long) (timer.c)
 *   latewait with selftest=deadlock and 4 CPUs or more, cpu 1 joins the
 *            hang after it began: it asks for lock A too, interrupts
 *            masked, from its idle thread, 0.7 of ttrace.watchdog after
 *            the deadlock began. The first report finds it spinning, yet
 *            not silent for half the limit, so not stuck
 *            (selftest_deadlock.c)
 */
#define INJECT_KINDS(X)                                                                            \
	X(NONE, none)                                                                              \
	X(APSTART, apstart)                                                                        \
	X(APLATE, aplate)                                                                          \
	X(LATENMI, latenmi)                                                                        \
	X(WAKECLAIM, wakeclaim)                                                                    \
	X(RECWEDGE, recwedge)                                                                      \
	X(CALSTALL, calstall)                                                                      \
	X(LATEWAIT, latewait)

enum inject_kind {
#define INJECT_ENUM_(NAME, word) INJECT_##NAME,
	INJECT_KINDS(INJECT_ENUM_)
#undef INJECT_ENUM_
	    INJECT_LIMIT
};

struct kernel_options {
	uint64_t smp;
	uint32_t selftest; /* enum selftest_kind */
	char ttrace[TTRACE_OPTION_MAX];
	char ttrace_echo[TTRACE_OPTION_MAX];
	uint64_t ttrace_ring_kb;
	uint64_t ttrace_aux_kb;
	uint64_t panic_halt;
	uint64_t watchdog_s;
	uint64_t watchdog_panic;
	uint32_t inject; /* enum inject_kind */
};

extern struct kernel_options kopts;

/* Parses the command line into kopts, printing one warning per bad word. */
void options_parse(const char *cmdline);

#endif
