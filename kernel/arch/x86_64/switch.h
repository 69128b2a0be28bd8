/*
 * switch: the stack switch (switch.S), for the scheduler and for the
 * entry code that prepares a stack to be resumed (syscall_entry.S).
 */
#ifndef SPOOR_ARCH_SWITCH_H
#define SPOOR_ARCH_SWITCH_H

/*
 * The registers switch_context() saves on a stack: rbp rbx r12 r13 r14
 * r15. A stack prepared to resume at some code holds that many words
 * (their values unused), and above them the code's address.
 */
#define SWITCH_SAVED_REGS 6

#ifndef __ASSEMBLER__
#include <stdint.h>

/*
 * Saves the callee-saved registers on the current stack, stores its
 * pointer in *prev_rsp, and resumes the stack at next_rsp where it last
 * switched away (or where it was prepared to resume).
 */
void switch_context(uint64_t *prev_rsp, uint64_t next_rsp);
#endif

#endif
