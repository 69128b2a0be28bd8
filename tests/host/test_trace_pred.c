/*
 * Tests common/trace_pred_parse.c and common/trace_pred.c: each row a
 * filter's text for a kind and what comes of it (the one-line refusal,
 * or events it keeps and rejects); bytecode rows the kernel's check must
 * refuse; and random and mutated programs, every one of which the check
 * refuses or the run evaluates within its bounds (ASan and UBSan watch).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "common/trace_pred.h"
#include "common/trace_pred_parse.h"
#include "rand.h"
#include "test.h"

#define WHY_MAX	 160
#define SYSCALLS (1ull << TTRACE_KIND_syscall_entry | 1ull << TTRACE_KIND_syscall_exit)

struct error_row {
	uint16_t kind;
	uint64_t among;
	const char *text;
	const char *why; /* the whole line the compiler gives */
};

static const struct error_row error_rows[] = {
    {TTRACE_KIND_syscall_exit, 0, "rsult < 0", "at 1: unknown field 'rsult'"},
    {TTRACE_KIND_syscall_entry, 0, "result < 0", "at 1: syscall_entry has no field 'result'"},
    {TTRACE_KIND_syscall_exit, 0, "result <", "at 9: expected a number or a value's name"},
    {TTRACE_KIND_syscall_exit, 0, "result < 0 &&", "at 14: expected a term"},
    {TTRACE_KIND_syscall_exit, 0, "(result < 0", "at 12: expected )"},
    {TTRACE_KIND_syscall_exit, 0, "result < 0 pid", "at 12: expected && || or the end"},
    {TTRACE_KIND_syscall_exit, 0, "comm < \"x\"", "at 6: comm compares only with == and !="},
    {TTRACE_KIND_syscall_exit, 0, "comm == 3", "at 9: comm compares with a name or a \"string\""},
    {TTRACE_KIND_syscall_exit, 0, "pid == \"x\"", "at 8: a string compares only with comm"},
    {TTRACE_KIND_syscall_exit, 0, "pid == -1", "at 8: value out of range: the field is unsigned"},
    {TTRACE_KIND_syscall_exit, 0, "pid == 0x100000000",
     "at 8: value out of range (at most 4294967295)"},
    {TTRACE_KIND_syscall_exit, 0, "result == -ENOPE", "at 11: unknown value '-ENOPE'"},
    {TTRACE_KIND_proc_spawn, 0, "name == 3",
     "at 6: a string reference compares with nothing (comm compares names)"},
    {TTRACE_KIND_syscall_exit, 0, "pid == 1 ==", "at 10: expected && || or the end"},
    {TTRACE_KIND_syscall_exit, 0, "((((((((((pid == 1))))))))))",
     "at 9: too deep: more than 8 levels"},
    {TTRACE_KIND_syscall_exit, 0,
     "pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||pid==1||"
     "pid==1||pid==1||pid==1||pid==1||pid==1||pid==1",
     "at 127: too long: more than 32 operations"},
    {TTRACE_KIND_syscall_exit, 0,
     "pid==1&&(pid==1&&(pid==1&&(pid==1&&(pid==1&&(pid==1&&(pid==1&&(pid==1&&pid==1)))))))",
     "at 72: too deep: more than 8 terms pending"},
    {TTRACE_KIND_syscall_exit, 0, "comm == \"0123456789012345678901234567890123\"",
     "at 9: string longer than 31 bytes"},
};

TEST(pred_refuses_bad_text_with_its_place)
{
	for (size_t r = 0; r < sizeof(error_rows) / sizeof(error_rows[0]); r++) {
		const struct error_row *row = &error_rows[r];
		struct ttrace_pred_prog prog;
		char why[WHY_MAX] = "";

		int err =
		    ttrace_pred_compile(row->text, row->kind, row->among, &prog, why, sizeof(why));
		CHECK_EQ_INT(err, -EINVAL, row->text);
		CHECK(!strcmp(why, row->why), "%s: '%s', expected '%s'", row->text, why, row->why);
	}
}

TEST(pred_targets_name_kinds_and_categories)
{
	uint64_t kinds = 0, cats = 0;
	char why[WHY_MAX] = "";

	CHECK_EQ_INT(ttrace_pred_targets("syscall", &kinds, &cats, why, sizeof(why)), 0, why);
	CHECK_EQ_UINT(kinds, SYSCALLS, "syscall");
	CHECK_EQ_UINT(cats, TTRACE_CAT(SYSCALL), "syscall");
	CHECK_EQ_INT(ttrace_pred_targets("syscall_exit,mem_pf", &kinds, &cats, why, sizeof(why)), 0,
		     why);
	CHECK_EQ_UINT(kinds, 1ull << TTRACE_KIND_syscall_exit | 1ull << TTRACE_KIND_mem_pf, "two");
	CHECK_EQ_UINT(cats, TTRACE_CAT(SYSCALL) | TTRACE_CAT(MEM), "two");
	CHECK_EQ_INT(ttrace_pred_targets("syscall,nosuch", &kinds, &cats, why, sizeof(why)),
		     -EINVAL, "nosuch");
	CHECK(!strcmp(why, "unknown kind or category 'nosuch'"), "%s", why);
	CHECK_EQ_INT(ttrace_pred_check("result < 0", SYSCALLS, why, sizeof(why)), 0, why);
	CHECK_EQ_INT(
	    ttrace_pred_check("result < 0", 1ull << TTRACE_KIND_syscall_entry, why, sizeof(why)),
	    -EINVAL, "one kind is strict");
	CHECK(!strcmp(why, "at 1: syscall_entry has no field 'result'"), "%s", why);
	CHECK_EQ_INT(ttrace_pred_check("vaddr == 1", SYSCALLS, why, sizeof(why)), -EINVAL, "vaddr");
	CHECK(!strcmp(why, "at 1: none of these kinds has a field 'vaddr'"), "%s", why);
}

TEST(pred_refuses_text_too_long)
{
	char text[TTRACE_PRED_TEXT_MAX + 2];
	struct ttrace_pred_prog prog;
	char why[WHY_MAX] = "";

	memset(text, ' ', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	memcpy(text, "pid == 1", 8);
	CHECK_EQ_INT(
	    ttrace_pred_compile(text, TTRACE_KIND_syscall_exit, 0, &prog, why, sizeof(why)),
	    -EINVAL, "too long");
	CHECK(!strcmp(why, "at 201: too long: more than 200 characters"), "%s", why);
}

/* An event for the eval rows: kind's words, and the common fields. */
struct event {
	uint64_t data[TTRACE_HEAD_WORDS];
	uint32_t pid, tid, cpu, ctx;
	const char *comm;
};

struct eval_row {
	uint16_t kind;
	uint64_t among;
	const char *text;
	struct event ev;
	bool kept;
};

#define NEG(x) ((uint64_t)(int64_t)(x))

static const struct eval_row eval_rows[] = {
    {TTRACE_KIND_syscall_exit, 0, "result < 0", {.data = {1, NEG(-22)}}, true},
    {TTRACE_KIND_syscall_exit, 0, "result < 0", {.data = {1, 5}}, false},
    {TTRACE_KIND_syscall_exit, 0, "result == -EINVAL", {.data = {1, NEG(-22)}}, true},
    {TTRACE_KIND_syscall_exit, 0, "result >= -1", {.data = {1, NEG(-1)}}, true},
    {TTRACE_KIND_syscall_exit,
     0,
     "result < 0 && pid == 42",
     {.data = {1, NEG(-2)}, .pid = 42},
     true},
    {TTRACE_KIND_syscall_exit,
     0,
     "result < 0 && pid == 42",
     {.data = {1, NEG(-2)}, .pid = 41},
     false},
    {TTRACE_KIND_syscall_exit, 0, "result < 0 || pid == 42", {.data = {1, 0}, .pid = 42}, true},
    {TTRACE_KIND_syscall_exit, 0, "!(result < 0 || pid == 42)", {.data = {1, 0}, .pid = 42}, false},
    {TTRACE_KIND_syscall_exit, 0, "nr == 26", {.data = {26, 3}}, true},
    {TTRACE_KIND_syscall_entry, SYSCALLS, "result < 0", {.data = {26}}, false},
    {TTRACE_KIND_syscall_entry, SYSCALLS, "result < 0 || nr == 26", {.data = {26}}, true},
    {TTRACE_KIND_mem_pf, 0, "err & 0x4", {.data = {0, 0, 6}}, true},
    {TTRACE_KIND_mem_pf, 0, "err & 0x4", {.data = {0, 0, 2}}, false},
    {TTRACE_KIND_mem_pf, 0, "outcome == cow", {.data = {0, 0, 0, TTRACE_PF_COW}}, true},
    {TTRACE_KIND_sched_switch, 0, "prev_state != blocked", {.data = {1, 0, 2}}, true},
    {TTRACE_KIND_mem_copy, 0, "dir == to_user", {.data = {0, 0, TTRACE_COPY_TO_USER}}, true},
    {TTRACE_KIND_ipc_call, 0, "endpoint == 3 && label > 0x10", {.data = {3, 0x11}}, true},
    {TTRACE_KIND_ipc_call, 0, "endpoint == 3 && label > 0x10", {.data = {3, 0x10}}, false},
    {TTRACE_KIND_mem_pf, 0, "comm == \"memtest\"", {.comm = "memtest"}, true},
    {TTRACE_KIND_mem_pf, 0, "comm == \"memtest\"", {.comm = "memtest2"}, false},
    {TTRACE_KIND_mem_pf, 0, "comm != \"memtest\"", {.comm = NULL}, true},
    {TTRACE_KIND_mem_pf, 0, "comm == memtest", {.comm = "memtest"}, true},
    {TTRACE_KIND_mem_pf, 0, "ctx == trap && cpu <= 1", {.cpu = 1, .ctx = TTRACE_CTX_TRAP}, true},
    {TTRACE_KIND_mem_pf, 0, "ctx == syscall", {.ctx = TTRACE_CTX_TRAP}, false},
    {TTRACE_KIND_test_tick, 0, "seq >= 10 && seq < 20 || tid == 7", {.data = {15}}, true},
    {TTRACE_KIND_test_tick,
     0,
     "seq >= 10 && (seq < 20 || tid == 7)",
     {.data = {25}, .pid = 0, .tid = 7},
     true},
    {TTRACE_KIND_test_tick,
     0,
     "seq >= 10 && (seq < 20 || tid == 7)",
     {.data = {5}, .pid = 0, .tid = 7},
     false},
    {TTRACE_KIND_user, 0, "pid == 3", {.data = {0}, .pid = 3}, true},
};

TEST(pred_keeps_exactly_what_it_says)
{
	for (size_t r = 0; r < sizeof(eval_rows) / sizeof(eval_rows[0]); r++) {
		const struct eval_row *row = &eval_rows[r];
		struct ttrace_pred_prog prog;
		char why[WHY_MAX] = "";

		int err =
		    ttrace_pred_compile(row->text, row->kind, row->among, &prog, why, sizeof(why));
		CHECK(!err, "%s: %s", row->text, why);
		if (err) {
			continue;
		}
		CHECK_EQ_INT(ttrace_pred_verify(row->kind, prog.insn, prog.n), 0, row->text);
		struct ttrace_pred_event ev = {.data = row->ev.data,
					       .pid = row->ev.pid,
					       .tid = row->ev.tid,
					       .cpu = row->ev.cpu,
					       .ctx = row->ev.ctx,
					       .comm = row->ev.comm};
		CHECK_EQ_INT(ttrace_pred_eval(prog.insn, prog.n, &ev), row->kept, row->text);
	}
}

#define CMP(o, f, v)                                                                               \
	{                                                                                          \
		.op = TTRACE_PRED_##o, .field = (f), .value = (v)                                  \
	}
#define OP(o)                                                                                      \
	{                                                                                          \
		.op = TTRACE_PRED_##o                                                              \
	}

struct bad_row {
	const char *what;
	uint16_t kind;
	struct ttrace_pred_insn insn[4];
	uint32_t n;
};

static const struct bad_row bad_rows[] = {
    {"no instruction", TTRACE_KIND_syscall_exit, {OP(TRUE)}, 0},
    {"too many", TTRACE_KIND_syscall_exit, {OP(TRUE)}, TTRACE_PRED_INSNS_MAX + 1},
    {"no such kind", 0, {OP(TRUE)}, 1},
    {"kind past the table", TTRACE_KIND_LIMIT, {OP(TRUE)}, 1},
    {"unknown op", TTRACE_KIND_syscall_exit, {{.op = TTRACE_PRED_OP_LIMIT}}, 1},
    {"op zero", TTRACE_KIND_syscall_exit, {{.op = 0}}, 1},
    {"AND past the stack", TTRACE_KIND_syscall_exit, {OP(TRUE), OP(TRUE), OP(AND), OP(AND)}, 4},
    {"two left", TTRACE_KIND_syscall_exit, {OP(TRUE), OP(TRUE)}, 2},
    {"AND of one", TTRACE_KIND_syscall_exit, {OP(TRUE), OP(AND)}, 2},
    {"NOT of none", TTRACE_KIND_syscall_exit, {OP(NOT)}, 1},
    {"word past the format", TTRACE_KIND_syscall_exit, {CMP(EQ, 2, 0)}, 1},
    {"word past the head", TTRACE_KIND_syscall_exit, {CMP(EQ, 5, 0)}, 1},
    {"unknown field", TTRACE_KIND_syscall_exit, {CMP(EQ, 21, 0)}, 1},
    {"signed op on pid", TTRACE_KIND_syscall_exit, {CMP(SLT, TTRACE_PRED_F_PID, 0)}, 1},
    {"unsigned order on a d word", TTRACE_KIND_syscall_exit, {CMP(LT, 1, 0)}, 1},
    {"signed order on a u word", TTRACE_KIND_test_tick, {CMP(SLT, 0, 0)}, 1},
    {"number op on comm", TTRACE_KIND_syscall_exit, {CMP(EQ, TTRACE_PRED_F_COMM, 0)}, 1},
    {"string op on pid", TTRACE_KIND_syscall_exit, {CMP(STR_EQ, TTRACE_PRED_F_PID, 0)}, 1},
    {"field on AND",
     TTRACE_KIND_syscall_exit,
     {OP(TRUE), OP(TRUE), {.op = TTRACE_PRED_AND, .field = 1}},
     3},
    {"value on TRUE", TTRACE_KIND_syscall_exit, {{.op = TTRACE_PRED_TRUE, .value = 1}}, 1},
    {"reserved set", TTRACE_KIND_syscall_exit, {{.op = TTRACE_PRED_TRUE, .reserved = 1}}, 1},
    {"reserved1 set", TTRACE_KIND_syscall_exit, {{.op = TTRACE_PRED_TRUE, .reserved1 = 1}}, 1},
    {"too deep", TTRACE_KIND_syscall_exit, {OP(TRUE)}, 0 /* built below */},
};

TEST(pred_verify_refuses_hostile_bytecode)
{
	static struct ttrace_pred_insn big[TTRACE_PRED_INSNS_MAX + 1];

	for (size_t r = 0; r < sizeof(bad_rows) / sizeof(bad_rows[0]); r++) {
		const struct bad_row *row = &bad_rows[r];
		const struct ttrace_pred_insn *p = row->insn;
		uint32_t n = row->n;

		if (n > 4 || !strcmp(row->what, "too deep")) {
			for (uint32_t i = 0; i < TTRACE_PRED_INSNS_MAX + 1; i++) {
				big[i] = (struct ttrace_pred_insn){.op = TTRACE_PRED_TRUE};
			}
			p = big;
			n = n ? n : TTRACE_PRED_DEPTH_MAX + 1;
		}
		CHECK_EQ_INT(ttrace_pred_verify(row->kind, p, n), -EINVAL, row->what);
	}
	struct ttrace_pred_insn s = {.op = TTRACE_PRED_STR_EQ, .field = TTRACE_PRED_F_COMM};
	memset(s.str, 'a', sizeof(s.str));
	CHECK_EQ_INT(ttrace_pred_verify(TTRACE_KIND_mem_pf, &s, 1), -EINVAL, "string without NUL");
	struct ttrace_pred_insn num = CMP(EQ, TTRACE_PRED_F_PID, 1);
	num.str[20] = 'x';
	CHECK_EQ_INT(ttrace_pred_verify(TTRACE_KIND_mem_pf, &num, 1), -EINVAL,
		     "bytes past a value");
	struct ttrace_pred_insn good[] = {CMP(SLT, 1, 0), CMP(EQ, TTRACE_PRED_F_PID, 7), OP(AND)};
	CHECK_EQ_INT(ttrace_pred_verify(TTRACE_KIND_syscall_exit, good, 3), 0, "a good program");
}

/* A random instruction, mostly of ops and fields that exist, so some programs pass. */
static struct ttrace_pred_insn random_insn(uint64_t *state)
{
	struct ttrace_pred_insn i = {0};
	uint32_t r = (uint32_t)test_random(state);

	i.op = (uint8_t)(r % (TTRACE_PRED_OP_LIMIT + 2));
	if (i.op >= TTRACE_PRED_EQ && i.op <= TTRACE_PRED_STR_NE) {
		i.field = (uint8_t)(r >> 8) % 22;
		i.value = test_random(state) % 4;
	}
	if (r >> 28 == 0) {
		((uint8_t *)&i)[(r >> 16) % sizeof(i)] ^= (uint8_t)(1u << (r >> 24) % 8);
	}
	return i;
}

TEST(pred_fuzz_refuses_or_evaluates)
{
	uint64_t data[TTRACE_HEAD_WORDS] = {1, 2, 3, 4, 5};
	struct ttrace_pred_event ev = {.data = data, .pid = 1, .comm = "init"};
	uint32_t passed = 0;

	uint64_t state = 34;
	for (uint32_t round = 0; round < 200000; round++) {
		struct ttrace_pred_insn p[TTRACE_PRED_INSNS_MAX];
		uint32_t n = 1 + (uint32_t)test_random(&state) % 6;
		uint16_t kind = (uint16_t)(test_random(&state) % (TTRACE_KIND_LIMIT + 1));

		for (uint32_t i = 0; i < n; i++) {
			p[i] = random_insn(&state);
		}
		if (!ttrace_pred_verify(kind, p, n)) {
			passed++;
			(void)ttrace_pred_eval(p, n, &ev);
		}
	}
	CHECK(passed > 100, "only %u random programs passed: the fuzzer tests little", passed);
}
