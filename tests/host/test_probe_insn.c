/*
 * What a kernel probe needs of the instruction it replaces
 * (kernel/trace/probe_insn.h): each row an instruction's bytes as GCC
 * emits them (objdump's text beside it), how rip is put right after its
 * step, where a rip-relative displacement is, and whether it may be
 * stepped at all.
 */
#include <stddef.h>
#include <stdint.h>

#include "test.h"
#include "trace/probe_insn.h"

#define MAX_BYTES 15

TEST(probe_insn_decodes_what_the_step_needs)
{
	static const struct {
		const char *what;
		uint8_t len;
		uint8_t code[MAX_BYTES];
		uint8_t fix;
		int8_t disp_at;
		bool refused;
	} rows[] = {
	    {"push %rbp", 1, {0x55}, PROBE_FIX_RELATIVE, -1, false},
	    {"mov %rsp,%rbp", 3, {0x48, 0x89, 0xe5}, PROBE_FIX_RELATIVE, -1, false},
	    {"mov %rdi,%rbx", 3, {0x48, 0x89, 0xfb}, PROBE_FIX_RELATIVE, -1, false},
	    {"sub $0x8,%rsp", 4, {0x48, 0x83, 0xec, 0x08}, PROBE_FIX_RELATIVE, -1, false},
	    {"mov 0x48(%rdi),%r12", 4, {0x4c, 0x8b, 0x67, 0x48}, PROBE_FIX_RELATIVE, -1, false},
	    {"sub 0x8fedc(%rip),%rax",
	     7,
	     {0x48, 0x2b, 0x05, 0xdc, 0xfe, 0x08, 0x00},
	     PROBE_FIX_RELATIVE,
	     3,
	     false},
	    {"mulq 0x8fecd(%rip)",
	     7,
	     {0x48, 0xf7, 0x25, 0xcd, 0xfe, 0x08, 0x00},
	     PROBE_FIX_RELATIVE,
	     3,
	     false},
	    {"cmpl $0x1,0x396a2(%rip)",
	     7,
	     {0x83, 0x3d, 0xa2, 0x96, 0x03, 0x00, 0x01},
	     PROBE_FIX_RELATIVE,
	     2,
	     false},
	    {"mov %gs:0xf0,%rcx",
	     9,
	     {0x65, 0x48, 0x8b, 0x0c, 0x25, 0xf0, 0x00, 0x00, 0x00},
	     PROBE_FIX_RELATIVE,
	     -1,
	     false},
	    {"cmovbe %rbx,%rax", 4, {0x48, 0x0f, 0x46, 0xc3}, PROBE_FIX_RELATIVE, -1, false},
	    {"lea 0x0(%rip),%rdi",
	     7,
	     {0x48, 0x8d, 0x3d, 0x00, 0x00, 0x00, 0x00},
	     PROBE_FIX_RELATIVE,
	     3,
	     false},
	    {"call rel32", 5, {0xe8, 0x10, 0x20, 0x00, 0x00}, PROBE_FIX_CALL, -1, false},
	    {"jmp rel32", 5, {0xe9, 0x10, 0x20, 0x00, 0x00}, PROBE_FIX_RELATIVE, -1, false},
	    {"jne rel8", 2, {0x75, 0x10}, PROBE_FIX_RELATIVE, -1, false},
	    {"jne rel32", 6, {0x0f, 0x85, 0x10, 0x00, 0x00, 0x00}, PROBE_FIX_RELATIVE, -1, false},
	    {"ret", 1, {0xc3}, PROBE_FIX_ABSOLUTE, -1, false},
	    {"leave", 1, {0xc9}, PROBE_FIX_RELATIVE, -1, false},
	    {"call *%rdx", 2, {0xff, 0xd2}, PROBE_FIX_ABS_CALL, -1, false},
	    {"call *0x10(%rip)",
	     6,
	     {0xff, 0x15, 0x10, 0x00, 0x00, 0x00},
	     PROBE_FIX_ABS_CALL,
	     2,
	     false},
	    {"jmp *%rax", 2, {0xff, 0xe0}, PROBE_FIX_ABSOLUTE, -1, false},
	    {"incl (%rax)", 2, {0xff, 0x00}, PROBE_FIX_RELATIVE, -1, false},
	    {"rdtsc", 2, {0x0f, 0x31}, PROBE_FIX_RELATIVE, -1, false},
	    {"lock cmpxchg %rsi,(%rcx)",
	     5,
	     {0xf0, 0x48, 0x0f, 0xb1, 0x31},
	     PROBE_FIX_RELATIVE,
	     -1,
	     false},
	    {"rep movsb", 2, {0xf3, 0xa4}, PROBE_FIX_RELATIVE, -1, false},
	    {"nopw 0x0(%rax,%rax,1)",
	     6,
	     {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
	     PROBE_FIX_RELATIVE,
	     -1,
	     false},
	    {"int3", 1, {0xcc}, PROBE_FIX_RELATIVE, -1, true},
	    {"int $0x80", 2, {0xcd, 0x80}, PROBE_FIX_RELATIVE, -1, true},
	    {"cli", 1, {0xfa}, PROBE_FIX_RELATIVE, -1, true},
	    {"sti", 1, {0xfb}, PROBE_FIX_RELATIVE, -1, true},
	    {"pushf", 1, {0x9c}, PROBE_FIX_RELATIVE, -1, true},
	    {"popf", 1, {0x9d}, PROBE_FIX_RELATIVE, -1, true},
	    {"hlt", 1, {0xf4}, PROBE_FIX_RELATIVE, -1, true},
	    {"iretq", 2, {0x48, 0xcf}, PROBE_FIX_RELATIVE, -1, true},
	    {"ud2", 2, {0x0f, 0x0b}, PROBE_FIX_RELATIVE, -1, true},
	    {"swapgs", 3, {0x0f, 0x01, 0xf8}, PROBE_FIX_RELATIVE, -1, true},
	    {"syscall", 2, {0x0f, 0x05}, PROBE_FIX_RELATIVE, -1, true},
	    {"mov %eax,%ss", 2, {0x8e, 0xd0}, PROBE_FIX_RELATIVE, -1, true},
	    {"lcall *(%rax)", 2, {0xff, 0x18}, PROBE_FIX_RELATIVE, -1, true},
	    {"only prefixes", 2, {0x66, 0x48}, PROBE_FIX_RELATIVE, -1, true},
	    {"a ModRM cut off", 1, {0x8b}, PROBE_FIX_RELATIVE, -1, true},
	    {"a displacement cut off", 4, {0x48, 0x8b, 0x05, 0x00}, PROBE_FIX_RELATIVE, 3, true},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct probe_insn insn;

		probe_insn_decode(rows[i].code, rows[i].len, &insn);
		CHECK(insn.refused == rows[i].refused, "%s: refused %d", rows[i].what,
		      insn.refused);
		if (!rows[i].refused) {
			CHECK(insn.fix == rows[i].fix, "%s: fix %u", rows[i].what, insn.fix);
			CHECK(insn.disp_at == rows[i].disp_at, "%s: disp_at %d", rows[i].what,
			      insn.disp_at);
		}
	}
}
