/*
 * probe_insn: see probe_insn.h. The order of an instruction (SDM 2A 2.1):
 * legacy prefixes, a REX prefix, one to three opcode bytes (0F, 0F 38 and
 * 0F 3A begin the longer maps), then ModRM when the opcode has one. A
 * rip-relative operand is ModRM's mod 00 with r/m 101 (SDM 2A 2.2.1.6),
 * its disp32 right after ModRM.
 */
#include "trace/probe_insn.h"

#define MODRM_MOD(m) ((m) >> 6)
#define MODRM_REG(m) (((m) >> 3) & 7)
#define MODRM_RM(m)  ((m)&7)
#define RIP_RELATIVE 5 /* r/m 101 with mod 00 */
#define OP_TWO_BYTE  0x0f
#define OP_THREE_38  0x38
#define OP_THREE_3A  0x3a
#define OP_GROUP5    0xff /* FF /2 call, /3 callf, /4 jmp, /5 jmpf */
#define G5_CALL	     2
#define G5_CALL_FAR  3
#define G5_JMP	     4
#define G5_JMP_FAR   5

/* A bit per opcode: 256 bits as four words. */
#define HAS(map, op) ((map)[(op) / 64] >> ((op) % 64) & 1)

/*
 * The one-byte opcodes with a ModRM (SDM 2D A.3, table A-2): the ALU
 * forms 00-03 and 08-0B of rows 0-3, 62 (EVEX), 63, 69, 6B, 80-8F, C0, C1, C4-C7, D0-D3,
 * D8-DF, F6, F7, FE, FF.
 */
static const uint64_t modrm1[4] = {
    0x0f0f0f0f0f0f0f0full,
    0x00000a0c00000000ull,
    0x000000000000ffffull,
    0xc0c00000ff0f00f3ull,
};

/*
 * The two-byte opcodes (0F xx) without a ModRM (table A-3): 05-09, 0B,
 * 0E, 30-37, 77, 80-8F, A0-A2, A8-AA, C8-CF; every other one has one.
 */
static const uint64_t no_modrm2[4] = {
    0x00ff000000004be0ull,
    0x0080000000000000ull,
    0x000007070000ffffull,
    0x000000000000ff00ull,
};

static bool legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: /* lock */
	case 0xf2: /* repne */
	case 0xf3: /* rep */
	case 0x2e: /* segments cs, ss, ds, es, fs, gs */
	case 0x36:
	case 0x3e:
	case 0x26:
	case 0x64:
	case 0x65:
	case 0x66: /* operand size */
	case 0x67: /* address size */
		return true;
	default:
		return false;
	}
}

/*
 * One-byte opcodes a step out of line would get wrong: they trap or
 * return through another frame (int3, int, into, int1, iret, far
 * returns), halt, change or read IF and TF (cli, sti, pushf, popf), load
 * SS (which holds off the step's trap), or are not instructions in
 * 64-bit mode or begin VEX and EVEX, which the kernel does not use.
 */
static bool refused1(uint8_t op)
{
	switch (op) {
	case 0x06:
	case 0x07:
	case 0x0e:
	case 0x16:
	case 0x17:
	case 0x1e:
	case 0x1f:
	case 0x27:
	case 0x2f:
	case 0x37:
	case 0x3f:
	case 0x60:
	case 0x61:
	case 0x62:
	case 0x8e:
	case 0x9a:
	case 0x9c:
	case 0x9d:
	case 0xc4:
	case 0xc5:
	case 0xca:
	case 0xcb:
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xea:
	case 0xf1:
	case 0xf4:
	case 0xfa:
	case 0xfb:
		return true;
	default:
		return false;
	}
}

/*
 * Two-byte ones: the system group 0F 00 and 0F 01 (descriptor tables,
 * swapgs), syscall, sysret, sysenter, sysexit, the undefined ud0, ud1,
 * ud2 (a deliberate trap), and the pops of fs and gs.
 */
static bool refused2(uint8_t op)
{
	switch (op) {
	case 0x00:
	case 0x01:
	case 0x05:
	case 0x07:
	case 0x0b:
	case 0x34:
	case 0x35:
	case 0xa1:
	case 0xa9:
	case 0xb9:
	case 0xff:
		return true;
	default:
		return false;
	}
}

void probe_insn_decode(const uint8_t *code, uint32_t len, struct probe_insn *insn)
{
	uint32_t i = 0;
	bool modrm;

	*insn = (struct probe_insn){.fix = PROBE_FIX_RELATIVE, .disp_at = -1};
	while (i < len && legacy_prefix(code[i])) {
		i++;
	}
	if (i < len && (code[i] & 0xf0) == 0x40) { /* REX */
		i++;
	}
	if (i >= len) {
		insn->refused = true;
		return;
	}
	uint8_t op = code[i++];
	if (op != OP_TWO_BYTE) {
		modrm = HAS(modrm1, op);
		insn->refused = refused1(op);
		if (op == 0xe8) { /* call rel32 */
			insn->fix = PROBE_FIX_CALL;
		} else if (op == 0xc2 || op == 0xc3) { /* ret */
			insn->fix = PROBE_FIX_ABSOLUTE;
		}
	} else if (i < len && (code[i] == OP_THREE_38 || code[i] == OP_THREE_3A)) {
		i += 2; /* the map's byte and the opcode: all of these have a ModRM */
		modrm = true;
	} else if (i < len) {
		uint8_t op2 = code[i++];
		modrm = !HAS(no_modrm2, op2);
		insn->refused = refused2(op2);
	} else {
		insn->refused = true;
		return;
	}
	if (!modrm) {
		return;
	}
	if (i >= len) {
		insn->refused = true;
		return;
	}
	uint8_t m = code[i];
	if (op == OP_GROUP5) {
		uint8_t reg = MODRM_REG(m);
		insn->fix = reg == G5_CALL  ? PROBE_FIX_ABS_CALL
			    : reg == G5_JMP ? PROBE_FIX_ABSOLUTE
					    : PROBE_FIX_RELATIVE;
		insn->refused = reg == G5_CALL_FAR || reg == G5_JMP_FAR;
	}
	if (MODRM_MOD(m) == 0 && MODRM_RM(m) == RIP_RELATIVE) {
		insn->disp_at = (int8_t)(i + 1);
		insn->refused |= i + 5 > len;
	}
}
