/*
 * Tests common/trace_pred_jump.c: random programs, valid by
 * construction, lowered and run over random events, must give the
 * bytecode's own verdict (ttrace_pred_eval()) every time, with every jump
 * forward; and rows of edge values where the folded constants turn.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace.h"
#include "common/trace_pred.h"
#include "common/trace_pred_jump.h"
#include "common/trace_pred_parse.h"
#include "pred_random.h"
#include "rand.h"
#include "test.h"

/*
 * A record as a reader might lay one out: fields of every width, each
 * with eight bytes readable from it, and filler that a test sets to
 * garbage so a term that read past its field would be caught.
 */
struct record {
	uint64_t data[TTRACE_HEAD_WORDS];
	uint32_t pid;
	uint32_t tid;
	uint16_t cpu;
	uint8_t ctx;
	uint8_t filler[5];
	char comm[PROC_NAME_MAX];
	uint64_t tail;
};

#define AT(f) (uint16_t) __builtin_offsetof(struct record, f)

static const struct ttrace_pred_layout layout = {
    .at = {[0] = AT(data[0]),
	   [1] = AT(data[1]),
	   [2] = AT(data[2]),
	   [3] = AT(data[3]),
	   [4] = AT(data[4]),
	   [TTRACE_PRED_F_PID] = AT(pid),
	   [TTRACE_PRED_F_TID] = AT(tid),
	   [TTRACE_PRED_F_CPU] = AT(cpu),
	   [TTRACE_PRED_F_CTX] = AT(ctx),
	   [TTRACE_PRED_F_COMM] = AT(comm)},
    .bytes = {8, 8, 8, 8, 8, [TTRACE_PRED_F_PID] = 4, [TTRACE_PRED_F_TID] = 4,
	      [TTRACE_PRED_F_CPU] = 2, [TTRACE_PRED_F_CTX] = 1},
};

/* Whether every term of j from its entry on jumps forward, and the entry is a term. */
static bool forward(const struct ttrace_pred_jumps *j)
{
	if (j->entry % TTRACE_PRED_TERM_AT(1) || j->entry >= TTRACE_PRED_KEEP) {
		return false;
	}
	for (uint32_t at = j->entry; at < TTRACE_PRED_KEEP; at += TTRACE_PRED_TERM_AT(1)) {
		const struct ttrace_pred_term *t = &j->term[at / TTRACE_PRED_TERM_AT(1)];

		for (int side = 0; side < 2; side++) {
			uint16_t to = t->next[side];

			if (to <= at || to > TTRACE_PRED_REJECT || to % TTRACE_PRED_TERM_AT(1)) {
				return false;
			}
		}
	}
	return true;
}

/* A random event, in a record and as ttrace_pred_eval() takes it. */
static void event(uint64_t *state, struct record *rec, struct ttrace_pred_event *ev)
{
	memset(rec, 0xa5, sizeof(*rec)); /* garbage wherever a field is not */
	for (uint32_t w = 0; w < TTRACE_HEAD_WORDS; w++) {
		rec->data[w] = pred_random_value(state);
	}
	rec->pid = (uint32_t)pred_random_value(state);
	rec->tid = (uint32_t)pred_random_value(state);
	rec->cpu = (uint16_t)pred_random_value(state);
	rec->ctx = (uint8_t)pred_random_value(state);
	const char *name = pred_random_name(state);
	if (name) {
		/* the bytes past the NUL stay garbage: a name's only go up to its NUL */
		memcpy(rec->comm, name, strlen(name) + 1);
	} else {
		memset(rec->comm, 0, sizeof(rec->comm));
	}
	*ev = (struct ttrace_pred_event){.data = rec->data,
					 .pid = rec->pid,
					 .tid = rec->tid,
					 .cpu = rec->cpu,
					 .ctx = rec->ctx,
					 .comm = name};
}

TEST(pred_jumps_agree_with_the_bytecode)
{
	static const uint16_t kinds[] = {TTRACE_KIND_syscall_exit, TTRACE_KIND_test_tick,
					 TTRACE_KIND_mem_pf, TTRACE_KIND_sched_switch,
					 TTRACE_KIND_ipc_call};
	uint64_t state = 3434;
	uint32_t programs = 0, kept = 0, rejected = 0;

	for (uint32_t round = 0; round < 20000; round++) {
		uint16_t kind = kinds[test_random(&state) % (sizeof(kinds) / sizeof(kinds[0]))];
		struct ttrace_pred_insn p[TTRACE_PRED_INSNS_MAX];
		struct ttrace_pred_jumps j;
		uint32_t n = pred_random_program(kind, &state, p);

		if (ttrace_pred_verify(kind, p, n)) {
			continue; /* too deep once joined: the generator's, not the lowering's */
		}
		programs++;
		ttrace_pred_lower(p, n, &layout, &j);
		CHECK(forward(&j), "round %u: a jump backwards or nowhere", round);
		for (int e = 0; e < 20; e++) {
			struct record rec;
			struct ttrace_pred_event ev;

			event(&state, &rec, &ev);
			bool want = ttrace_pred_eval(p, n, &ev);
			CHECK(ttrace_pred_run(&j, &rec) == want,
			      "round %u event %d: the jumps say %d", round, e, !want);
			kept += want;
			rejected += !want;
		}
	}
	CHECK(programs > 10000, "only %u programs were valid: the test tests little", programs);
	CHECK(kept > 10000 && rejected > 10000, "kept %u, rejected %u: one-sided", kept, rejected);
}

struct row {
	uint16_t kind;
	const char *text;
	uint64_t word0;
	const char *comm;
	bool kept;
	uint32_t terms; /* terms the lowering places (a constant program one) */
};

static const struct row rows[] = {
    {TTRACE_KIND_test_tick, "seq <= 0xffffffffffffffff", 5, NULL, true, 1},
    {TTRACE_KIND_test_tick, "seq > 0xffffffffffffffff", 5, NULL, false, 1},
    {TTRACE_KIND_test_tick, "seq < 0xffffffffffff && cpu <= 7", 5, NULL, true, 2},
    {TTRACE_KIND_test_tick, "seq > 0xffffffffffff && cpu <= 7", 5, NULL, false, 2},
    {TTRACE_KIND_test_tick, "seq == 0 || seq == 5", 5, NULL, true, 2},
    {TTRACE_KIND_test_tick, "comm == \"memtest\"", 0, "memtest", true, 1},
    {TTRACE_KIND_test_tick, "comm == \"memtest\"", 0, "memtest2", false, 1},
    {TTRACE_KIND_test_tick, "comm == \"memtest2\"", 0, "memtest2", true, 2},
    {TTRACE_KIND_test_tick, "comm == \"memtest2\"", 0, "memtest", false, 2},
    {TTRACE_KIND_test_tick, "comm != \"\"", 0, NULL, false, 1},
    {TTRACE_KIND_test_tick, "comm == \"0123456789abcdefghijklmnopqrstu\"", 0,
     "0123456789abcdefghijklmnopqrstu", true, 4},
};

TEST(pred_jumps_fold_and_split_as_they_should)
{
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *row = &rows[r];
		struct ttrace_pred_prog prog;
		struct ttrace_pred_jumps j;
		struct record rec = {.data = {row->word0}};
		char why[160] = "";

		CHECK(!ttrace_pred_compile(row->text, row->kind, 0, &prog, why, sizeof(why)),
		      "%s: %s", row->text, why);
		ttrace_pred_lower(prog.insn, prog.n, &layout, &j);
		if (row->comm) {
			memset(rec.comm, 'z', sizeof(rec.comm));
			memcpy(rec.comm, row->comm, strlen(row->comm) + 1);
		}
		uint32_t terms = (TTRACE_PRED_KEEP - j.entry) / TTRACE_PRED_TERM_AT(1);
		CHECK_EQ_UINT(terms, row->terms, row->text);
		CHECK_EQ_INT(ttrace_pred_run(&j, &rec), row->kept, row->text);
	}
}
