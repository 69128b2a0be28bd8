/*
 * Kernel probes (`trace probe`), as Linux's kprobes: a breakpoint at an
 * instruction boundary of the kernel's text that records a `probe` event
 * (abi/trace_kinds.def) each time a CPU reaches it, with the probe's name
 * and the registers it names, then runs the instruction it replaced.
 *
 * WHERE. A probe is at SYMBOL+OFFSET, SYMBOL a kernel function (the
 * kernel's symbol table, as trace func names them) and OFFSET a start of
 * one of its instructions: the kernel carries a table of the instruction
 * boundaries of its text, made at build time from kernel.elf's
 * disassembly (tools/kinsns), and refuses every other offset. Without an
 * offset a probe is at the function's first instruction after the
 * function tracer's entry NOP (abi/trace_func.h), which is the function
 * tracer's to patch. TTRACE_PROBE_WHYS lists each refusal; a refused
 * request changes nothing.
 *
 * WHAT IT RECORDS. data[0] of the event is the aux reference (TEXT) of
 * the probe's description, "NAME(REG,REG,...)"; data[1] on the values of
 * the registers it names, in that order, at the probed instruction (rip:
 * the instruction's address; flags: rflags). The entry's five data words
 * hold the description and TTRACE_PROBE_REGS_MAX registers, so a probe
 * names at most that many.
 *
 * HOW. The first byte of the instruction becomes int3. A hit records the
 * event, then runs a copy of the instruction, out of line, one step under
 * the trap flag with interrupts masked, and goes on after the original
 * (its rip, a call's pushed return address and a rip-relative operand
 * put right). A CPU records one hit at a time; one it reaches meanwhile
 * (the echo's console output while recording) is stepped but not
 * recorded, and counted in missed (struct ttrace_probe_info).
 */
#ifndef SPOOR_ABI_TRACE_PROBE_H
#define SPOOR_ABI_TRACE_PROBE_H

#include <stdint.h>

#define TTRACE_PROBE_MAX      16 /* probes set at once */
#define TTRACE_PROBE_REGS_MAX 4	 /* registers a probe event carries: data[1..4] */
#define TTRACE_PROBE_NAME_MAX 32 /* a probe's name, with its NUL */
#define TTRACE_PROBE_SYM_MAX  64 /* a function's name, with its NUL */

/* The registers a probe may record: number, name. Append only. */
#define TTRACE_PROBE_REGS(X)                                                                       \
	X(0, rdi)                                                                                  \
	X(1, rsi)                                                                                  \
	X(2, rdx)                                                                                  \
	X(3, rcx)                                                                                  \
	X(4, r8)                                                                                   \
	X(5, r9)                                                                                   \
	X(6, rax)                                                                                  \
	X(7, rbx)                                                                                  \
	X(8, rbp)                                                                                  \
	X(9, r12)                                                                                  \
	X(10, r13)                                                                                 \
	X(11, r14)                                                                                 \
	X(12, r15)                                                                                 \
	X(13, rsp)                                                                                 \
	X(14, rip)                                                                                 \
	X(15, flags)

#define TTRACE_PROBE_REG_(n, name) TTRACE_PROBE_REG_##name = n,

enum { TTRACE_PROBE_REGS(TTRACE_PROBE_REG_) TTRACE_PROBE_REG_LIMIT };

/*
 * Why the kernel refused a probe: value, NAME, the one line a person
 * reads. Append only.
 */
#define TTRACE_PROBE_WHYS(X)                                                                       \
	X(0, NONE, "set")                                                                          \
	X(1, SYMBOL, "no kernel function has that name")                                           \
	X(2, AMBIGUOUS, "more than one kernel function has that name")                             \
	X(3, PAST_END, "the offset is past the function's end")                                    \
	X(4, INSIDE, "the offset is inside an instruction, not at its start")                      \
	X(5, NOTRACE, "a function the tracer may not trace (trace func list says why)")            \
	X(6, ENTRY_NOP, "the entry NOP is the function tracer's (probe past it)")                  \
	X(7, NMI, "the function can run in an NMI")                                                \
	X(8, PATCHED, "the kernel rewrites or restarts that code (a tracepoint's straight path)")  \
	X(9, INSN, "an instruction a probe cannot step (it traps, or sets IF or TF)")              \
	X(10, REGS, "too many registers or an unknown one")                                        \
	X(11, NAME, "a bad name (letters, digits, _ . + and at most 31)")                          \
	X(12, TAKEN, "a probe of that name or at that place is set already")                       \
	X(13, FULL, "every probe slot is taken")                                                   \
	X(14, NO_TABLE, "this kernel has no instruction table")

#define TTRACE_PROBE_WHY_(n, NAME, text) TTRACE_PROBE_WHY_##NAME = n,

enum { TTRACE_PROBE_WHYS(TTRACE_PROBE_WHY_) TTRACE_PROBE_WHY_LIMIT };

/* trace_probe's operations. */
#define TTRACE_PROBE_ON	 0 /* set the probe spec describes */
#define TTRACE_PROBE_OFF 1 /* remove the probe named spec.name (an empty name: every probe) */

/*
 * The system call trace_probe(trace-control slot, op, spec): returns the
 * number of probes set afterwards, or -EINVAL with spec.why saying why
 * (written back), -ENOENT for an OFF of a name no probe has, -ECPUSTUCK
 * when a CPU did not stop. Also traced's PROBE_ON request.
 */
struct ttrace_probe_spec {
	char symbol[TTRACE_PROBE_SYM_MAX]; /* NUL-terminated */
	char
	    name[TTRACE_PROBE_NAME_MAX]; /* NUL-terminated (the shell's default: SYMBOL[+OFFSET]) */
	uint32_t offset;		 /* into symbol, with has_offset */
	uint32_t has_offset;		 /* 0: past the entry NOP */
	uint8_t regs[TTRACE_PROBE_REGS_MAX]; /* TTRACE_PROBE_REG_* */
	uint32_t nregs;
	uint32_t why; /* out: TTRACE_PROBE_WHY_* */
};

_Static_assert(sizeof(struct ttrace_probe_spec) == 116, "abi");

/*
 * What the system call probe_info(index, struct ttrace_probe_info *) says
 * of probe slot index (0 to TTRACE_PROBE_MAX - 1): addr 0 for a free slot.
 * Any program may ask.
 */
struct ttrace_probe_info {
	uint64_t addr;	 /* the probed instruction */
	uint64_t hits;	 /* CPUs that reached it since it was set */
	uint64_t missed; /* hits not recorded (HOW), every probe's */
	uint32_t offset; /* addr's offset into symbol */
	uint32_t nregs;
	uint8_t regs[TTRACE_PROBE_REGS_MAX];
	uint32_t len; /* the instruction's length in bytes */
	char symbol[TTRACE_PROBE_SYM_MAX];
	char name[TTRACE_PROBE_NAME_MAX];
};

_Static_assert(sizeof(struct ttrace_probe_info) == 136, "abi");

#endif
