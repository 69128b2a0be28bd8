/*
 * probe_xol: the slots where kernel probes (trace/probe.h) keep the copy
 * of the instruction each replaced, stepped out of line. In the kernel's
 * text, so a rip-relative operand's displacement reaches from here what
 * it reached from the original, and executable; written through the
 * direct map's alias of the text, as every patch of the code is. int3
 * fills what no copy holds.
 */
#define PROBE_XOL_BYTES 16 /* trace/probe.c: an instruction is at most 15 bytes */
#define PROBE_XOL_SLOTS 16 /* TTRACE_PROBE_MAX (abi/trace_probe.h), which probe.c checks */

	.section .note.GNU-stack, "", @progbits
	.section .text.probe_xol, "ax"
	.balign PROBE_XOL_BYTES
	.globl probe_xol
	.type probe_xol, @object
probe_xol:
	.fill PROBE_XOL_SLOTS * PROBE_XOL_BYTES, 1, 0xcc
	.size probe_xol, . - probe_xol
