/*
 * pred_code: the code generator of pred_code.h. Two passes over the same
 * emitter: the first writes nothing and finds where each term's code
 * starts (every instruction's size is fixed by its term, never by a
 * distance: jumps are always rel32), the second writes the bytes with
 * every jump's distance known. The encodings are those of the SDM,
 * volume 2 (REX, ModRM and SIB: 2.1 and 2.2.1; the instructions by name).
 *
 * A term holds when ((w & mask) - sub) < lim, unsigned, w its field
 * zero-extended to 64 bits (trace_pred_jump.h). The lowering makes each
 * comparison one of a few shapes, each a single compare or test here:
 *  - lim 1: (w & mask) == sub, a compare with sub (mask the whole width:
 *    EQ, NE) or a test of mask (sub 0: BIT);
 *  - mask the whole width, sub 0: w < lim, a compare (LT, LE, GT, GE);
 *  - 64 bits, sub 2^63: w < (lim ^ 2^63) signed, a compare (SLT ... SGE);
 * and any other term the general way: w into rax, the and, the sub, the
 * compare. A term whose answer does not depend on w (mask 0, lim 0, or a
 * sub with bits the mask lacks) is a jump, or nothing.
 */
#include "trace/pred_code.h"

#include <stdbool.h>

#include "abi/proc.h"
#include "abi/trace.h"

/* Registers, by their number in ModRM and REX. */
#define RAX 0
#define RCX 1
#define RDX 2
#define RSI 6
#define R8  8
#define R9  9
#define R10 10
#define R11 11

/* Where the event's words are on entry: ttrace_emit_slow()'s arguments after the kind. */
static const uint8_t word_reg[TTRACE_HEAD_WORDS] = {RSI, RDX, RCX, R8, R9};

#define PREFIX_GS     0x65
#define PREFIX_OPSIZE 0x66
#define REX	      0x40
#define REX_W	      0x08
#define REX_R	      0x04
#define REX_B	      0x01
#define MODRM_REG     0xc0 /* mod 11: the operand is a register */
#define MODRM_SIB     0x04 /* mod 00, rm 100: a SIB byte follows */
#define MODRM_DISP32  0x80 /* mod 10: the register plus a 32-bit displacement */
#define SIB_DISP32    0x25 /* no base, no index: a 32-bit absolute displacement */

/* One-byte opcodes, and two-byte ones (0x0f first) as 0x0fNN. */
#define OP_CMP_RM_IMM8	0x80 /* /7 ib, bytes */
#define OP_ALU_RM_IMM	0x81 /* /digit iw or id */
#define OP_ALU_RM_IMM8S 0x83 /* /digit ib, sign-extended */
#define OP_AND_RM_R	0x21
#define OP_SUB_RM_R	0x29
#define OP_CMP_RM_R	0x39
#define OP_TEST_RM_R	0x85
#define OP_MOV_R_RM	0x8b
#define OP_LEA		0x8d
#define OP_JE_REL8	0x74
#define OP_TEST_RM_IMM8 0xf6 /* /0 ib */
#define OP_TEST_RM_IMM	0xf7 /* /0 iw or id */
#define OP_MOVZX_BYTE	0x0fb6
#define OP_MOVZX_WORD	0x0fb7
#define OP_MOV_R_IMM64	0xb8 /* + the register */
#define OP_MOV_EAX_IMM	0xb8
#define OP_RET		0xc3
#define OP_JMP_REL32	0xe9
#define OP_JCC_REL32	0x0f80 /* + the condition */
#define DIGIT_AND	4
#define DIGIT_SUB	5
#define DIGIT_CMP	7
#define DIGIT_TEST	0

/* Conditions (SDM 2, B.1.4.7); a condition ^ 1 is its negation. */
#define CC_B 0x2 /* below, unsigned */
#define CC_E 0x4
#define CC_L 0xc /* less, signed */

#define JMP	  (-1) /* jump()'s condition for a jump that always goes */
#define JMP_BYTES 5
#define JCC_BYTES 6

#define SIGN	    (1ull << 63)
#define TERM_BYTES  TTRACE_PRED_TERM_AT(1)
#define LABELS	    (2 * TTRACE_PRED_TERMS + 1) /* every term of both programs, then keep */
#define TO_REJECT   UINT16_MAX			/* the labels of the exits, past every unit's */
#define TO_FIRED    (UINT16_MAX - 1)
#define EXTERNAL(l) ((l) >= TO_FIRED)

_Static_assert(LABELS < TO_FIRED, "the exits' labels are no unit's");

/* Where an operand is. */
enum where {
	IN_REG,	 /* the register reg */
	AT_GS,	 /* bytes at %gs:at */
	AT_BASE, /* bytes at at(reg) */
};

/* A term's field, or an operand of the name's walk. */
struct operand {
	enum where where;
	uint8_t reg;
	uint8_t bytes;
	uint16_t at;
};

struct gen {
	uint8_t *buf; /* NULL while sizing */
	uint32_t len;
	uint64_t at;
	const struct pred_code_env *env;
	uint32_t pos[LABELS]; /* where each unit starts, found by the sizing pass */
	bool bad;
};

/* One program's terms as units: the labels its jumps go to. */
struct prog {
	const struct ttrace_pred_jumps *j;
	uint32_t entry;	       /* the first term's index */
	uint16_t first;	       /* the label of term entry; term i's is first + i - entry */
	uint16_t keep, reject; /* where its verdicts go */
};

static void put(struct gen *g, uint8_t b)
{
	if (g->buf) {
		g->buf[g->len] = b;
	}
	g->len++;
}

static void imm(struct gen *g, uint64_t v, uint32_t bytes)
{
	for (uint32_t i = 0; i < bytes; i++) {
		put(g, (uint8_t)(v >> 8 * i));
	}
}

static bool fits_s32(uint64_t v)
{
	return (int64_t)v == (int32_t)v;
}

/* An instruction of width bytes (1, 2, 4, 8): its opcode, ModRM's reg field, its operand x. */
static void op(struct gen *g, uint8_t width, uint16_t opcode, uint8_t reg, struct operand x)
{
	uint8_t rex = (width == 8 ? REX_W : 0) | (reg & 8 ? REX_R : 0) |
		      (x.where != AT_GS && x.reg & 8 ? REX_B : 0);

	if (x.where == AT_GS) {
		put(g, PREFIX_GS);
	}
	if (width == 2) {
		put(g, PREFIX_OPSIZE);
	}
	if (rex) {
		put(g, REX | rex);
	}
	if (opcode > 0xff) {
		put(g, (uint8_t)(opcode >> 8));
	}
	put(g, (uint8_t)opcode);
	if (x.where == AT_GS) {
		put(g, (uint8_t)((reg & 7) << 3 | MODRM_SIB));
		put(g, SIB_DISP32);
		imm(g, x.at, 4);
	} else if (x.where == AT_BASE) {
		/* the base is rax or r10, never rsp or r12, which would take a SIB byte */
		put(g, (uint8_t)(MODRM_DISP32 | (reg & 7) << 3 | (x.reg & 7)));
		imm(g, x.at, 4);
	} else {
		put(g, (uint8_t)(MODRM_REG | (reg & 7) << 3 | (x.reg & 7)));
	}
}

/* movabs $v, %reg, reg one of r8 to r15. */
static void movabs(struct gen *g, uint8_t reg, uint64_t v)
{
	put(g, REX | REX_W | REX_B);
	put(g, (uint8_t)(OP_MOV_R_IMM64 + (reg & 7)));
	imm(g, v, 8);
}

/* movabs $v, %r11: for a constant no 32-bit immediate carries. */
static void movabs_r11(struct gen *g, uint64_t v)
{
	movabs(g, R11, v);
}

/* The flags of x - v in x's width (v within it). */
static void cmp_imm(struct gen *g, struct operand x, uint64_t v)
{
	uint8_t width = x.where == IN_REG ? 8 : x.bytes;

	if (width == 8 && !fits_s32(v)) {
		movabs_r11(g, v);
		op(g, 8, OP_CMP_RM_R, R11, x);
	} else if (width == 1) {
		op(g, 1, OP_CMP_RM_IMM8, DIGIT_CMP, x);
		imm(g, v, 1);
	} else if (v < 0x80) {
		op(g, width, OP_ALU_RM_IMM8S, DIGIT_CMP, x);
		imm(g, v, 1);
	} else {
		op(g, width, OP_ALU_RM_IMM, DIGIT_CMP, x);
		imm(g, v, width == 2 ? 2 : 4);
	}
}

/* The flags of x & v in x's width (v within it): ZF when no bit of v is set. */
static void test_imm(struct gen *g, struct operand x, uint64_t v)
{
	uint8_t width = x.where == IN_REG ? 8 : x.bytes;

	if (width == 8 && !fits_s32(v)) {
		movabs_r11(g, v);
		op(g, 8, OP_TEST_RM_R, R11, x);
	} else if (width == 1) {
		op(g, 1, OP_TEST_RM_IMM8, DIGIT_TEST, x);
		imm(g, v, 1);
	} else {
		op(g, width, OP_TEST_RM_IMM, DIGIT_TEST, x);
		imm(g, v, width == 2 ? 2 : 4);
	}
}

/* rax = x, zero-extended. */
static void load_rax(struct gen *g, struct operand x)
{
	if (x.where == IN_REG || x.bytes == 8) {
		op(g, 8, OP_MOV_R_RM, RAX, x);
	} else {
		op(g, 4,
		   x.bytes == 1	  ? OP_MOVZX_BYTE
		   : x.bytes == 2 ? OP_MOVZX_WORD
				  : OP_MOV_R_RM,
		   RAX, x);
	}
}

/* rax op= v (and, sub) or the flags of rax - v (cmp), 64 bits. */
static void alu_rax(struct gen *g, uint8_t digit, uint8_t op_rm_r, uint64_t v)
{
	const struct operand rax = {.reg = RAX};

	if (!fits_s32(v)) {
		movabs_r11(g, v);
		op(g, 8, op_rm_r, R11, rax);
	} else if (v < 0x80) {
		op(g, 8, OP_ALU_RM_IMM8S, digit, rax);
		imm(g, v, 1);
	} else {
		op(g, 8, OP_ALU_RM_IMM, digit, rax);
		imm(g, v, 4);
	}
}

/* The address of label: an exit's, or a unit's (known in the second pass). */
static uint64_t address_of(const struct gen *g, uint16_t label)
{
	if (label == TO_REJECT) {
		return g->env->reject;
	}
	if (label == TO_FIRED) {
		return g->env->fired;
	}
	return g->at + (label < LABELS ? g->pos[label] : 0);
}

/* A jump to label when condition cc holds (JMP: always). */
static void jump(struct gen *g, int cc, uint16_t label)
{
	uint64_t from = g->at + g->len + (cc == JMP ? JMP_BYTES : JCC_BYTES);
	int64_t rel = (int64_t)(address_of(g, label) - from);

	/* an exit is where it is in both passes; a unit, within the code, is reached */
	if (EXTERNAL(label) && rel != (int32_t)rel) {
		g->bad = true;
	}
	if (cc == JMP) {
		put(g, OP_JMP_REL32);
	} else {
		put(g, (uint8_t)(OP_JCC_REL32 >> 8));
		put(g, (uint8_t)(OP_JCC_REL32 + cc));
	}
	imm(g, (uint64_t)rel, 4);
}

/* On to label, from the end of the unit whose successor is next. */
static void go(struct gen *g, uint16_t label, uint16_t next)
{
	if (label != next) {
		jump(g, JMP, label);
	}
}

/* To[1] when cc holds, else to[0], from the end of the unit whose successor is next. */
static void branch(struct gen *g, int cc, const uint16_t to[2], uint16_t next)
{
	if (to[0] == next) {
		jump(g, cc, to[1]);
	} else if (to[1] == next) {
		jump(g, cc ^ 1, to[0]);
	} else {
		jump(g, cc, to[1]);
		jump(g, JMP, to[0]);
	}
}

/* The label of p's target to, from its term i: a later term or a verdict. */
static uint16_t label_of(struct gen *g, const struct prog *p, uint32_t i, uint16_t to)
{
	if (to == TTRACE_PRED_KEEP) {
		return p->keep;
	}
	if (to == TTRACE_PRED_REJECT) {
		return p->reject;
	}
	if (to % TERM_BYTES || to / TERM_BYTES <= i || to / TERM_BYTES >= TTRACE_PRED_TERMS) {
		g->bad = true; /* not forward, or nowhere: no code jumps back */
		return p->reject;
	}
	return (uint16_t)(p->first + to / TERM_BYTES - p->entry);
}

/*
 * Term t's field as an operand, in g's code: a word of comm in the name
 * r10 points at (name_base()); false for a field or width no term has.
 */
static bool operand_of(const struct gen *g, const struct ttrace_pred_term *t, struct operand *x)
{
	if (t->field < TTRACE_HEAD_WORDS) {
		*x = (struct operand){.where = IN_REG, .reg = word_reg[t->field], .bytes = 8};
		return true;
	}
	if (t->field == TTRACE_PRED_F_COMM) {
		uint32_t word = (uint32_t)(t->at - g->env->comm_at);

		*x = (struct operand){
		    .where = AT_BASE, .reg = R10, .bytes = 8, .at = (uint16_t)word};
		return t->at >= g->env->comm_at && word % 8 == 0 && word < PROC_NAME_MAX;
	}
	bool common = t->field >= TTRACE_PRED_F_PID && t->field <= TTRACE_PRED_F_CTX;
	bool width = t->bytes == 1 || t->bytes == 2 || t->bytes == 4 || t->bytes == 8;
	*x = (struct operand){.where = AT_GS, .bytes = t->bytes, .at = t->at};
	return common && width;
}

/* Term i of p, the unit labelled self: its test and its jumps. */
static void term(struct gen *g, const struct prog *p, uint32_t i, uint16_t self)
{
	const struct ttrace_pred_term *t = &p->j->term[i];
	uint16_t to[2] = {label_of(g, p, i, t->next[0]), label_of(g, p, i, t->next[1])};
	uint16_t next = (uint16_t)(self + 1);
	struct operand x;

	if (!operand_of(g, t, &x)) {
		g->bad = true;
		return;
	}
	uint64_t width = x.bytes == 8 ? ~0ull : (1ull << 8 * x.bytes) - 1;
	uint64_t m = t->mask & width, s = t->sub, l = t->lim;
	int cc;

	if (m == 0) {
		go(g, to[(0 - s) < l], next); /* w's bits all masked off: a constant */
		return;
	}
	if (l == 0 || (l == 1 && s & ~m)) {
		go(g, to[0], next); /* never: nothing is below 0, w & m never has s's bits */
		return;
	}
	if ((m == width && s == 0 && l > width) || to[0] == to[1]) {
		go(g, to[1], next); /* always: w is below l; or both ways go one way */
		return;
	}
	if (l == 1 && m == width) {
		cmp_imm(g, x, s);
		cc = CC_E;
	} else if (l == 1 && s == 0) {
		test_imm(g, x, m);
		cc = CC_E;
	} else if (m == width && s == 0) {
		cmp_imm(g, x, l);
		cc = CC_B;
	} else if (x.bytes == 8 && m == ~0ull && s == SIGN) {
		/* (w - 2^63) < l unsigned is w < (l ^ 2^63) signed */
		cmp_imm(g, x, l ^ SIGN);
		cc = CC_L;
	} else {
		load_rax(g, x);
		if (m != width) {
			alu_rax(g, DIGIT_AND, OP_AND_RM_R, m);
		}
		if (s) {
			alu_rax(g, DIGIT_SUB, OP_SUB_RM_R, s);
		}
		alu_rax(g, DIGIT_CMP, OP_CMP_RM_R, l);
		cc = CC_B;
	}
	branch(g, cc, to, next);
}

/* Each of p's terms from its entry on, labelled from *label on. */
static void program(struct gen *g, const struct prog *p, uint16_t *label)
{
	for (uint32_t i = p->entry; i < TTRACE_PRED_TERMS; i++) {
		g->pos[*label] = g->len;
		term(g, p, i, *label);
		*label += 1;
	}
}

/* Bytes the name's walk skips when an event has none, from each of its three tests. */
#define WALK_LEA    7			    /* lea name_at(%rax), %r10 */
#define WALK_PROC   (7 + 3 + 2 + WALK_LEA)  /* mov proc_at(%rax), %rax; test; je */
#define WALK_THREAD (9 + 3 + 2 + WALK_PROC) /* mov %gs:current_at, %rax; test; je */

/* A je over skip bytes. */
static void je8(struct gen *g, uint8_t skip)
{
	put(g, OP_JE_REL8);
	put(g, skip);
}

/*
 * r10 = the event's name, as pred_record_name() finds it: none for pid 0
 * or a thread without a process, else its process's.
 */
static void name_base(struct gen *g)
{
	const struct pred_code_env *e = g->env;
	const struct operand rax = {.where = IN_REG, .reg = RAX};

	movabs(g, R10, e->none);
	cmp_imm(g, (struct operand){.where = AT_GS, .bytes = 4, .at = e->pid_at}, 0);
	je8(g, WALK_THREAD);
	op(g, 8, OP_MOV_R_RM, RAX,
	   (struct operand){.where = AT_GS, .bytes = 8, .at = e->current_at});
	op(g, 8, OP_TEST_RM_R, RAX, rax);
	je8(g, WALK_PROC);
	op(g, 8, OP_MOV_R_RM, RAX,
	   (struct operand){.where = AT_BASE, .reg = RAX, .at = e->proc_at});
	op(g, 8, OP_TEST_RM_R, RAX, rax);
	je8(g, WALK_LEA);
	op(g, 8, OP_LEA, R10, (struct operand){.where = AT_BASE, .reg = RAX, .at = e->name_at});
}

/* The whole code: the name if a program reads it, the filter's terms, the trigger's, then
 * keeping the event. */
static void emit(struct gen *g, const struct prog *f, const struct prog *t)
{
	uint16_t label = 0;

	if ((f->j && f->j->reads_comm) || (t->j && t->j->reads_comm)) {
		name_base(g);
	}
	if (f->j) {
		program(g, f, &label);
	}
	if (t->j) {
		program(g, t, &label);
	}
	g->pos[label] = g->len;
	put(g, OP_MOV_EAX_IMM);
	imm(g, 1, 4);
	put(g, OP_RET);
}

/* p's entry term's index, or TTRACE_PRED_TERMS (no terms) for none or a bad entry. */
static uint32_t entry_of(struct gen *g, const struct ttrace_pred_jumps *j)
{
	if (!j) {
		return TTRACE_PRED_TERMS;
	}
	if (j->entry % TERM_BYTES || j->entry >= TTRACE_PRED_KEEP) {
		g->bad = true;
		return TTRACE_PRED_TERMS;
	}
	return j->entry / TERM_BYTES;
}

uint32_t pred_code_gen(const struct ttrace_pred_jumps *filter,
		       const struct ttrace_pred_jumps *trigger, const struct pred_code_env *env,
		       uint64_t at, uint8_t *buf, uint32_t room)
{
	struct gen g = {.at = at, .env = env};
	uint32_t fe = entry_of(&g, filter), te = entry_of(&g, trigger);
	uint16_t nf = (uint16_t)(TTRACE_PRED_TERMS - fe), nt = (uint16_t)(TTRACE_PRED_TERMS - te);
	uint16_t keep = (uint16_t)(nf + nt);
	struct prog f = {
	    .j = filter, .entry = fe, .first = 0, .keep = trigger ? nf : keep, .reject = TO_REJECT};
	struct prog t = {.j = trigger, .entry = te, .first = nf, .keep = TO_FIRED, .reject = keep};

	if (g.bad) {
		return 0;
	}
	emit(&g, &f, &t);
	if (g.bad || g.len > room) {
		return 0;
	}
	g.buf = buf;
	g.len = 0;
	emit(&g, &f, &t);
	return g.bad ? 0 : g.len;
}
