/*
 * pred_code: a kind's filter and trigger, lowered (common/trace_pred_jump.h),
 * compiled to x86-64 machine code that the filtered path runs at each of
 * the kind's tracepoints (trace/pred_run.h). Pure code: it writes bytes
 * into a buffer and touches nothing else, so the host tests run what it
 * makes against the bytecode's own verdicts.
 *
 * The code is entered as ttrace_emit_slow() is (tracepoint.h): edi the
 * kind and its words' count, rsi, rdx, rcx, r8, r9 the event's five
 * words, the return address into the site on the stack. The common
 * fields are read through %gs, at the byte offsets of the lowered terms:
 * in the kernel struct cpu's pid, tid, id and context (pred_record.h). A
 * term is a compare, or a test, of the word's register or the %gs field
 * with the term's constant, and a conditional jump: a load into rax
 * first only when the term masks and moves the field both. The code
 *  - changes no register it reads and writes none but rax, r10, r11 and
 *    the flags, pushes nothing and stores nothing: run again from its start
 *    it does what it would have done, so it may run as a restartable
 *    range (arch/x86_64/restart.h);
 *  - jumps only forward, as the lowered terms do, each term once at
 *    most: it ends after as many terms as the programs have;
 *  - leaves by one of three ways: a jump to env->reject (the filter
 *    rejects the event), a jump to env->fired (the filter keeps it and
 *    the trigger's predicate holds), or returning true (kept, no trigger
 *    fired), with the stack and the argument registers as it found them,
 *    so an exit is a C function of ttrace_emit_slow()'s arguments.
 * A program that reads comm finds the name first, once, before any term:
 * none for pid 0 (the kernel's) or a thread without a process, else the
 * process's own, as pred_record.h copies it for the interpreter; its
 * terms compare the name's words where they are. A program whose code
 * does not fit is not compiled: the caller runs it interpreted
 * (pred_run.h).
 */
#ifndef SPOOR_TRACE_PRED_CODE_H
#define SPOOR_TRACE_PRED_CODE_H

#include <stdint.h>

#include "common/trace_pred_jump.h"

/*
 * The most a kind's code takes, its filter's and its trigger's together:
 * a numeric term is up to 24 bytes (the bench's two terms and the return
 * take 41), a word of comm up to 35 after the name's walk of 54, so this
 * room holds ten terms at the least.
 */
#define PRED_CODE_BYTES 256

/* Where the code leaves to, as addresses, and where it finds an event's name. */
struct pred_code_env {
	uint64_t reject;     /* an event the filter rejects */
	uint64_t fired;	     /* an event the filter keeps and whose trigger's predicate holds */
	uint64_t none;	     /* PROC_NAME_MAX bytes of zeros: the name of an event without one */
	uint16_t comm_at;    /* in the lowered terms' record: comm's first word */
	uint16_t pid_at;     /* %gs: the event's pid, 4 bytes; 0 has no name */
	uint16_t current_at; /* %gs: the running thread, a pointer */
	uint16_t proc_at;    /* in a thread: its process, a pointer; NULL has no name */
	uint16_t name_at;    /* in a process: its name, PROC_NAME_MAX bytes */
};

/*
 * Compiles filter and then trigger (either NULL for none: the code of
 * none keeps every event) into buf, room bytes, for the code to run at
 * address at. Returns its length, or 0 when it cannot: the code would
 * take more than room, an exit is out of a jump's
 * reach (2 GiB), or a term of a program is not one the lowering makes (a
 * jump not forward, a field or width unknown); buf is then unchanged.
 */
uint32_t pred_code_gen(const struct ttrace_pred_jumps *filter,
		       const struct ttrace_pred_jumps *trigger, const struct pred_code_env *env,
		       uint64_t at, uint8_t *buf, uint32_t room);

#endif
