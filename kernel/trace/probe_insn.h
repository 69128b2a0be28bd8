/*
 * probe_insn: what a probe needs to know of the one instruction it
 * replaces (probe.h), from its bytes and its length (the instruction
 * table gives the length: this is no length decoder). A probe runs a copy
 * of the instruction elsewhere, one step under the trap flag, so it needs
 * where a rip-relative operand's displacement is (the copy's must point
 * where the original's does), how rip and a pushed return address are put
 * right after the step, and which instructions may not be stepped at all.
 * Decoded from the opcode maps of SDM 2, appendix A, for the general
 * instructions the kernel is built with (-mgeneral-regs-only: no VEX).
 * Pure; any context.
 */
#ifndef SPOOR_TRACE_PROBE_INSN_H
#define SPOOR_TRACE_PROBE_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* How the step's result is put right (probe.c). */
enum probe_fix {
	PROBE_FIX_RELATIVE, /* rip moved from the copy: move it as far from the original */
	PROBE_FIX_CALL,	    /* the same, and the pushed return address is the original's next */
	PROBE_FIX_ABSOLUTE, /* rip is an address the instruction read (ret, jmp *): keep it */
	PROBE_FIX_ABS_CALL, /* the same, and the pushed return address is the original's next */
};

struct probe_insn {
	uint8_t fix;	/* enum probe_fix */
	int8_t disp_at; /* where a rip-relative disp32 is, or -1 */
	bool refused;	/* it may not be stepped out of line */
};

/* Decodes the len bytes of code (1 to 15). */
void probe_insn_decode(const uint8_t *code, uint32_t len, struct probe_insn *insn);

#endif
