/*
 * panic: stop the machine when a kernel invariant is broken.
 *
 * The first CPU to panic stops all others with an NMI, prints one panic
 * block (reason, registers where known, a short stack walk) and halts; when
 * QEMU runs with an isa-debug-exit device it exits with a failure status.
 * panic() is for kernel bugs only: bad user input gets an error instead.
 */
#ifndef SPOOR_LIB_PANIC_H
#define SPOOR_LIB_PANIC_H

#include <stdbool.h>
#include <stdint.h>

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/* True once some CPU has started to panic; other CPUs then halt. */
bool panic_in_progress(void);

/*
 * The pieces panic() is made of, for the exception path (trap.c), which
 * prints its own register block between them. panic_begin() returns only
 * on the first CPU to panic, with interrupts off and the others stopped.
 */
void panic_begin(void);
void panic_stack_walk(uint64_t rip, uint64_t rbp);
__attribute__((noreturn)) void panic_finish(void);

#define KASSERT(cond)                                                                              \
	do {                                                                                       \
		if (__builtin_expect(!(cond), 0)) {                                                \
			panic("assertion '%s' failed at %s:%d", #cond, __FILE__, __LINE__);        \
		}                                                                                  \
	} while (0)

#endif
