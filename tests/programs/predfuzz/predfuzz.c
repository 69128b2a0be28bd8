/*
 * predfuzz: hostile filter bytecode into the kernel's check. Run with
 * `run -t predfuzz [ROUNDS]` (CONTROL: traced passes FILTER_CODE's
 * bytecode to the kernel unchecked, abi/traced.h). First a table of
 * programs the check must refuse, then ROUNDS (default 400) random and
 * mutated ones, each of whose answer must be the one the same check
 * gives here (common/trace_pred.c): 0 or -EINVAL, nothing else. Between
 * them it makes system calls, so the kernel runs every filter it took on
 * live events (with `trace on all` first). Ends with every filter it set
 * removed. Then the same for triggers (abi/trace_pred.h, TRIGGERS): the
 * programs, with an action drawn among those that change no ring (count,
 * stack) and ones the kernel must refuse, go through traced's TRIGGER as
 * bytecode, which traced passes on unchecked; each answer must be the
 * one the check here gives. Ends with every trigger removed, and prints
 * `predfuzz: N programs, A taken, R refused: ok`, or each failure (exit 1).
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "abi/trace_pred.h"
#include "common/trace_pred.h"

#define ROUNDS_DEFAULT 400

static int failures;
static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Sends kind's program through traced; checks the answer against want. */
static void send(const char *what, uint32_t kind, const struct ttrace_pred_insn *p, uint32_t n,
		 long want)
{
	static struct traced_filter_code c;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.n = n;
	memcpy(c.insn, p, n * sizeof(*p));
	long got = traced_call_filter_code(&c);
	if (got != want) {
		printf("predfuzz: %s (kind %u, %u insns) gave %ld, expected %ld\n", what, kind, n,
		       got, want);
		failures++;
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

/* Sends kind's program as a trigger of action through traced; checks the answer against want. */
static void send_trigger(uint32_t kind, uint32_t action, const struct ttrace_pred_insn *p,
			 uint32_t n, long want)
{
	static struct traced_trigger_request r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.action = action;
	r.n = n;
	memcpy(r.insn, p, n * sizeof(*p));
	long got = traced_call_trigger(&r);
	if (got != want) {
		printf("predfuzz: trigger %u (kind %u, %u insns) gave %ld, expected %ld\n", action,
		       kind, n, got, want);
		failures++;
	}
}

/* The trigger actions drawn: none of them changes what the rings take. */
static const uint32_t actions[] = {TTRACE_TRIG_NONE, TTRACE_TRIG_COUNT, TTRACE_TRIG_STACK,
				   TTRACE_TRIG_ACTION_LIMIT, 0xffffffffu};

/* What the kernel's check answers for a trigger (ktrace.c): 0 or -EINVAL. */
static long trigger_answer(uint32_t kind, uint32_t action, const struct ttrace_pred_insn *p,
			   uint32_t n)
{
	bool known = action == TTRACE_TRIG_COUNT || action == TTRACE_TRIG_STACK;

	if (!known || kind >= TTRACE_KIND_LIMIT ||
	    (action == TTRACE_TRIG_STACK && kind == TTRACE_KIND_user)) {
		return -EINVAL;
	}
	return ttrace_pred_verify((uint16_t)kind, p, n) ? -EINVAL : 0;
}

static const struct {
	const char *what;
	uint32_t kind, n;
	struct ttrace_pred_insn insn[3];
} bad[] = {
    {"no such kind", 0, 1, {OP(TRUE)}},
    {"op 0", TTRACE_KIND_syscall_exit, 1, {{.op = 0}}},
    {"op past the list", TTRACE_KIND_syscall_exit, 1, {{.op = TTRACE_PRED_OP_LIMIT}}},
    {"NOT of nothing", TTRACE_KIND_syscall_exit, 1, {OP(NOT)}},
    {"two left", TTRACE_KIND_syscall_exit, 2, {OP(TRUE), OP(FALSE)}},
    {"pop an empty stack", TTRACE_KIND_syscall_exit, 2, {OP(TRUE), OP(OR)}},
    {"a word the kind lacks", TTRACE_KIND_syscall_exit, 1, {CMP(EQ, 3, 0)}},
    {"a field that does not exist", TTRACE_KIND_syscall_exit, 1, {CMP(EQ, 99, 0)}},
    {"unsigned order on a signed word", TTRACE_KIND_syscall_exit, 1, {CMP(LT, 1, 0)}},
    {"signed order on pid", TTRACE_KIND_syscall_exit, 1, {CMP(SGT, TTRACE_PRED_F_PID, 0)}},
    {"a number compared with comm", TTRACE_KIND_mem_pf, 1, {CMP(EQ, TTRACE_PRED_F_COMM, 1)}},
    {"reserved bytes", TTRACE_KIND_syscall_exit, 1, {{.op = TTRACE_PRED_TRUE, .reserved = 7}}},
};

/* A random instruction, or a mutation of a good one. */
static struct ttrace_pred_insn random_insn(void)
{
	struct ttrace_pred_insn i = {0};
	uint64_t r = next();

	i.op = (uint8_t)(r % (TTRACE_PRED_OP_LIMIT + 1));
	i.field = (uint8_t)((r >> 8) % 22);
	i.value = next() % 3 ? (r >> 16) % 4 : next();
	if (i.op > TTRACE_PRED_STR_NE) {
		i.field = 0;
		i.value = 0;
	}
	if (r >> 60 == 0) {
		((uint8_t *)&i)[(r >> 24) % sizeof(i)] ^= (uint8_t)(1u << ((r >> 32) % 8));
	}
	return i;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : ROUNDS_DEFAULT;
	struct ttrace_pred_insn p[TTRACE_PRED_INSNS_MAX + 1];
	uint64_t taken = 0, refused = 0, kinds = 0;

	/* Without the capability the kernel refuses before it looks (abi/cap.h). */
	long err = sys_trace_filter(CAP_SLOT_TRACE_CONTROL, TTRACE_KIND_syscall_exit, p, 1);
	if (err != -EBADF) {
		printf("predfuzz: trace_filter without a capability gave %ld\n", err);
		failures++;
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		send(bad[i].what, bad[i].kind, bad[i].insn, bad[i].n, -EINVAL);
	}
	for (long round = 0; round < rounds; round++) {
		uint32_t n = 1 + (uint32_t)(next() % 8);
		uint32_t kind = (uint32_t)(next() % (TTRACE_KIND_LIMIT + 1));
		for (uint32_t i = 0; i < n; i++) {
			p[i] = random_insn();
		}
		long want = kind < TTRACE_KIND_LIMIT && !ttrace_pred_verify((uint16_t)kind, p, n)
				? 0
				: -EINVAL;
		send("random", kind, p, n, want);
		if (!want) {
			taken++;
			kinds |= 1ull << kind;
			(void)sys_getpid(); /* events for the filters to run on */
		} else {
			refused++;
		}
	}
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		if (kinds >> k & 1) {
			send("removing", k, p, 0, 0);
		}
	}
	struct ttrace_trigger none = {0};
	err = sys_trace_trigger(CAP_SLOT_TRACE_CONTROL, TTRACE_TRIG_SET, TTRACE_KIND_test_tick,
				&none);
	if (err != -EBADF) {
		printf("predfuzz: trace_trigger without a capability gave %ld\n", err);
		failures++;
	}
	for (long round = 0; round < rounds; round++) {
		uint32_t n = 1 + (uint32_t)(next() % 8);
		uint32_t kind = (uint32_t)(next() % (TTRACE_KIND_LIMIT + 1));
		uint32_t action = actions[next() % (sizeof(actions) / sizeof(actions[0]))];
		for (uint32_t i = 0; i < n; i++) {
			p[i] = random_insn();
		}
		long want = trigger_answer(kind, action, p, n);
		send_trigger(kind, action, p, n, want);
		if (!want) {
			taken++;
			(void)sys_getpid(); /* events for the triggers to run on */
		} else {
			refused++;
		}
	}
	send_trigger(0, TTRACE_TRIG_NONE, p, 0, 0); /* every kind's removed */
	if (failures) {
		return 1;
	}
	printf("predfuzz: %ld programs, %llu taken, %llu refused: ok\n",
	       2 * rounds + (long)(sizeof(bad) / sizeof(bad[0])), (unsigned long long)taken,
	       (unsigned long long)refused + sizeof(bad) / sizeof(bad[0]));
	return 0;
}
