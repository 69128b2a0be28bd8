/*
 * selftest: boot-time checks chosen with selftest= on the command line,
 * for the system tests. See options.h for the kinds.
 */
#ifndef SPOOR_INIT_SELFTEST_H
#define SPOOR_INIT_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The kinds, in one list: SELFTEST_<NAME> and the option's word for each
 * are generated from it (options.c), and selftest.c's dispatch table is
 * indexed by them.
 */
#define SELFTEST_KINDS(X)                                                                          \
	X(NONE, none)                                                                              \
	X(PAGEFAULT, pagefault)                                                                    \
	X(GPF, gpf)                                                                                \
	X(DIVIDE, divide)                                                                          \
	X(UD, ud)                                                                                  \
	X(DOUBLE_FAULT, doublefault)                                                               \
	X(TLB, tlb)                                                                                \
	X(HEAP, heap)                                                                              \
	X(TRACEBENCH, tracebench)                                                                  \
	X(DEADLOCK, deadlock)                                                                      \
	X(TRACENEST, tracenest)                                                                    \
	X(TRACEWEDGE, tracewedge)                                                                  \
	X(PROBESTALE, probestale)                                                                  \
	X(NMIGS, nmigs)                                                                            \
	X(MASKED, masked)

enum selftest_kind {
#define SELFTEST_ENUM_(NAME, word) SELFTEST_##NAME,
	SELFTEST_KINDS(SELFTEST_ENUM_)
#undef SELFTEST_ENUM_
	    SELFTEST_LIMIT
};

/* Runs one self-test; the exception kinds do not return. */
void selftest_run(uint32_t kind);

/*
 * An application processor's part of self-test kind, if it has one, on
 * its way to its idle loop (online, interrupts on): it returns when the
 * boot CPU's part is done with it, or never, for a CPU the self-test keeps
 * (selftest=deadlock with inject=latewait hangs it, selftest=masked spins
 * on it).
 */
void selftest_run_ap(uint32_t kind);

/*
 * selftest=deadlock: the last two CPUs deadlock, ABBA, with interrupts
 * masked, for the lockup detector; the rest of the machine goes on
 * (selftest_deadlock.c).
 */
void selftest_deadlock(void);

/*
 * selftest=deadlock's part on an application processor, from its idle
 * thread: with inject=latewait, cpu 1 joins the hang after it began and
 * never returns (selftest_deadlock.c).
 */
void selftest_deadlock_ap(void);

/*
 * selftest=nmigs: the boot CPU takes an NMI while its GS holds the user's
 * base, as in the instructions around the kernel's swapgs (isr.S), and
 * says whether the handler found its own per-CPU data (selftest_nmigs.c).
 */
void selftest_nmigs(void);

/*
 * selftest=masked: cpu 1 runs with interrupts masked all but a moment
 * every 100 ms, and 300 ms more after a host stall; the boot CPU's part
 * says so (selftest_masked.c).
 */
void selftest_masked(void);

/* selftest=masked's part on an application processor: cpu 1's never returns. */
void selftest_masked_ap(void);

/* Whether this NMI is selftest_nmigs()'s, which it then answers: the NMI handler asks. */
bool selftest_nmi(void);

#endif
