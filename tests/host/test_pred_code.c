/*
 * Tests kernel/trace/pred_code.c by running the code it makes, here on
 * the host: random programs (and random pairs of a filter and a
 * trigger), valid by construction, compiled and run over random events,
 * must give the bytecode's own verdicts (ttrace_pred_eval()) every time,
 * and leave every argument register as they found it (the code runs as a
 * restartable range in the kernel); random lists of terms of every shape,
 * the general one included, must give the lowered form's verdicts
 * (ttrace_pred_run()); and the refusals (too long, an exit out of reach,
 * a jump back) leave the buffer as it was.
 *
 * The code reads the common fields through %gs, as in the kernel; the
 * test points this thread's GS base at its record (arch_prctl, as
 * writers.c does) and puts it back after. The record's current thread
 * and its process are the test's own, laid out as the kernel's are not
 * (the code takes the offsets it is given). The code is written into a
 * mapping that is writable, then made read and execute before it runs.
 */
#include <asm/prctl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/proc.h"
#include "abi/trace.h"
#include "common/trace_pred.h"
#include "common/trace_pred_jump.h"
#include "common/trace_pred_parse.h"
#include "pred_random.h"
#include "rand.h"
#include "test.h"
#include "trace/pred_code.h"

/* The record %gs points at: the common fields of every width, garbage around them. */
struct record {
	uint64_t
	    data[TTRACE_HEAD_WORDS]; /* for ttrace_pred_run(); the code has them in registers */
	uint32_t pid;
	uint32_t tid;
	uint16_t cpu;
	uint8_t ctx;
	uint8_t filler[5];
	uint64_t wide; /* a field of 8 bytes, for the terms made by hand */
	char comm[PROC_NAME_MAX];
	const struct thread *current;
	uint64_t tail;
};

/* A thread and a process, as the code walks them to a name (pred_code_env). */
struct thread {
	uint64_t id;
	const struct process *proc;
};

struct process {
	uint32_t pid;
	char name[PROC_NAME_MAX];
	uint64_t tail;
};

static struct process proc;
static struct thread thread = {.proc = &proc};
static const char no_name[PROC_NAME_MAX];

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

/* The code's exits in the test's mapping: each returns its verdict. */
enum { REJECTED, KEPT, FIRED };

#define MAP_BYTES   4096
#define EXIT_REJECT 0
#define EXIT_FIRED  16
#define CODE_AT	    64

/* A mapping for code: the exits written at its start, then read and execute. */
static uint8_t *map_code(void)
{
	/* mov $verdict, %eax; ret */
	static const uint8_t reject[] = {0xb8, REJECTED, 0, 0, 0, 0xc3};
	static const uint8_t fired[] = {0xb8, FIRED, 0, 0, 0, 0xc3};
	uint8_t *m =
	    mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		abort();
	}
	memset(m, 0xcc, MAP_BYTES);
	memcpy(m + EXIT_REJECT, reject, sizeof(reject));
	memcpy(m + EXIT_FIRED, fired, sizeof(fired));
	return m;
}

/* Compiles filter and trigger into m's code (writable, then read and execute): its length. */
static uint32_t load(uint8_t *m, const struct ttrace_pred_jumps *filter,
		     const struct ttrace_pred_jumps *trigger)
{
	const struct pred_code_env env = {
	    .reject = (uintptr_t)m + EXIT_REJECT,
	    .fired = (uintptr_t)m + EXIT_FIRED,
	    .none = (uintptr_t)no_name,
	    .comm_at = AT(comm),
	    .pid_at = AT(pid),
	    .current_at = AT(current),
	    .proc_at = (uint16_t) __builtin_offsetof(struct thread, proc),
	    .name_at = (uint16_t) __builtin_offsetof(struct process, name),
	};

	if (mprotect(m, MAP_BYTES, PROT_READ | PROT_WRITE)) {
		abort();
	}
	uint32_t n = pred_code_gen(filter, trigger, &env, (uintptr_t)m + CODE_AT, m + CODE_AT,
				   PRED_CODE_BYTES);
	if (mprotect(m, MAP_BYTES, PROT_READ | PROT_EXEC)) {
		abort();
	}
	return n;
}

/*
 * Runs m's code as ttrace_emit_slow() is entered, with words d: its
 * verdict; *same false if it changed an argument register.
 */
static int run(const uint8_t *m, uint32_t kind_n, const uint64_t d[TTRACE_HEAD_WORDS], bool *same)
{
	register uint64_t r8 __asm__("r8") = d[3];
	register uint64_t r9 __asm__("r9") = d[4];
	uint64_t rdi = kind_n, rsi = d[0], rdx = d[1], rcx = d[2], rax;

	/* below the red zone first: the call pushes its return address */
	__asm__ volatile("sub $128, %%rsp\n\t"
			 "call *%[code]\n\t"
			 "add $128, %%rsp"
			 : "=a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+c"(rcx), "+r"(r8), "+r"(r9)
			 : [code] "r"(m + CODE_AT)
			 : "r10", "r11", "cc", "memory");
	*same =
	    rdi == kind_n && rsi == d[0] && rdx == d[1] && rcx == d[2] && r8 == d[3] && r9 == d[4];
	return (int)(uint32_t)rax;
}

/* This thread's GS base pointed at rec; the one before into *saved. */
static void gs_enter(struct record *rec, unsigned long *saved)
{
	if (syscall(SYS_arch_prctl, ARCH_GET_GS, saved) ||
	    syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)rec)) {
		abort();
	}
}

static void gs_leave(unsigned long saved)
{
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, saved)) {
		abort();
	}
}

/* A random event in rec, and as ttrace_pred_eval() takes it. */
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
	rec->wide = pred_random_value(state);
	/* a name, or none for each way the kernel has none: pid 0, no thread, no process */
	const char *name = pred_random_name(state);
	uint64_t r = test_random(state);
	memset(&proc, 0xa5, sizeof(proc)); /* the bytes past the NUL: garbage */
	thread.proc = r % 5 == 1 ? NULL : &proc;
	rec->current = r % 5 == 2 ? NULL : &thread;
	rec->pid = r % 5 == 3 ? 0 : rec->pid;
	/* a process always has a name, if only an empty one: NULL's is "" */
	memcpy(proc.name, name ? name : "", strlen(name ? name : "") + 1);
	bool named = name && rec->pid && rec->current && thread.proc;
	*ev = (struct ttrace_pred_event){.data = rec->data,
					 .pid = rec->pid,
					 .tid = rec->tid,
					 .cpu = rec->cpu,
					 .ctx = rec->ctx,
					 .comm = named ? name : NULL};
	memset(rec->comm, 0, sizeof(rec->comm));
	if (named) {
		memcpy(rec->comm, name, strlen(name) + 1);
	}
}

/* A program of kind's that ttrace_pred_verify() accepts, lowered into *j: its length. */
static uint32_t valid(uint16_t kind, uint64_t *state, struct ttrace_pred_insn *p,
		      struct ttrace_pred_jumps *j)
{
	uint32_t n;

	do {
		n = pred_random_program(kind, state, p);
	} while (ttrace_pred_verify(kind, p, n));
	ttrace_pred_lower(p, n, &layout, j);
	return n;
}

TEST(pred_code_agrees_with_the_bytecode)
{
	static const uint16_t kinds[] = {TTRACE_KIND_syscall_exit, TTRACE_KIND_test_tick,
					 TTRACE_KIND_mem_pf, TTRACE_KIND_sched_switch,
					 TTRACE_KIND_ipc_call};
	uint8_t *m = map_code();
	uint64_t state = 3435;
	uint32_t compiled = 0, by_name = 0, too_long = 0, verdicts[3] = {0};
	struct record rec;
	unsigned long saved;

	gs_enter(&rec, &saved);
	for (uint32_t round = 0; round < 30000; round++) {
		uint16_t kind = kinds[test_random(&state) % (sizeof(kinds) / sizeof(kinds[0]))];
		struct ttrace_pred_insn fp[TTRACE_PRED_INSNS_MAX], tp[TTRACE_PRED_INSNS_MAX];
		struct ttrace_pred_jumps fj, tj;
		uint64_t r = test_random(&state);
		/* a filter, a trigger, or both */
		uint32_t fn = r % 3 != 2 ? valid(kind, &state, fp, &fj) : 0;
		uint32_t tn = r % 3 != 0 ? valid(kind, &state, tp, &tj) : 0;
		const struct ttrace_pred_jumps *filter = fn ? &fj : NULL,
					       *trigger = tn ? &tj : NULL;
		uint8_t before[PRED_CODE_BYTES];

		memcpy(before, m + CODE_AT, sizeof(before));
		uint32_t n = load(m, filter, trigger);
		by_name += (filter && fj.reads_comm) || (trigger && tj.reads_comm);
		too_long += !n;
		compiled += n != 0;
		if (!n) {
			CHECK(!memcmp(before, m + CODE_AT, sizeof(before)),
			      "round %u: a refusal wrote code", round);
			continue;
		}
		CHECK(n <= PRED_CODE_BYTES, "round %u: %u bytes", round, n);
		for (int e = 0; e < 20; e++) {
			struct ttrace_pred_event ev;
			bool same;

			event(&state, &rec, &ev);
			int want = fn && !ttrace_pred_eval(fp, fn, &ev)	 ? REJECTED
				   : tn && ttrace_pred_eval(tp, tn, &ev) ? FIRED
									 : KEPT;
			int got = run(m, kind, rec.data, &same);
			CHECK(got == want, "round %u event %d: the code says %d, the bytecode %d",
			      round, e, got, want);
			CHECK(same, "round %u event %d: an argument register changed", round, e);
			verdicts[want]++;
		}
	}
	gs_leave(saved);
	munmap(m, MAP_BYTES);
	CHECK(compiled > 10000 && by_name > 10000 && too_long > 10,
	      "compiled %u, by name %u, too long %u: the test tests little", compiled, by_name,
	      too_long);
	CHECK(verdicts[REJECTED] > 10000 && verdicts[KEPT] > 10000 && verdicts[FIRED] > 10000,
	      "rejected %u, kept %u, fired %u: one-sided", verdicts[REJECTED], verdicts[KEPT],
	      verdicts[FIRED]);
}

/* A field of the record for a term made by hand: its field number, offset and width. */
static const struct {
	uint8_t field;
	uint16_t at;
	uint8_t bytes;
} sources[] = {
    {0, AT(data[0]), 8},
    {1, AT(data[1]), 8},
    {2, AT(data[2]), 8},
    {3, AT(data[3]), 8},
    {4, AT(data[4]), 8},
    {TTRACE_PRED_F_PID, AT(pid), 4},
    {TTRACE_PRED_F_TID, AT(tid), 4},
    {TTRACE_PRED_F_CPU, AT(cpu), 2},
    {TTRACE_PRED_F_CTX, AT(ctx), 1},
    {TTRACE_PRED_F_PID, AT(wide), 8},
};
#define SOURCES (sizeof(sources) / sizeof(sources[0]))

/* A jump target of term i, forward: a later term of those from first, or a verdict. */
static uint16_t target(uint64_t *state, uint32_t i)
{
	uint64_t r = test_random(state);
	uint32_t later = TTRACE_PRED_TERMS - 1 - i;

	if (!later || r % 3 == 0) {
		return r & 8 ? TTRACE_PRED_KEEP : TTRACE_PRED_REJECT;
	}
	return (uint16_t)TTRACE_PRED_TERM_AT(i + 1 + (r >> 8) % (later < 3 ? later : 3));
}

/* A random list of terms of every shape, masks within their fields: the last few of j. */
static void terms(uint64_t *state, struct ttrace_pred_jumps *j)
{
	uint32_t count = 1 + (uint32_t)(test_random(state) % 6);

	*j = (struct ttrace_pred_jumps){
	    .entry = (uint16_t)TTRACE_PRED_TERM_AT(TTRACE_PRED_TERMS - count)};
	for (uint32_t i = TTRACE_PRED_TERMS - count; i < TTRACE_PRED_TERMS; i++) {
		uint64_t r = test_random(state);
		uint32_t s = (uint32_t)(r % SOURCES);
		uint64_t width = sources[s].bytes == 8 ? ~0ull : (1ull << 8 * sources[s].bytes) - 1;
		uint64_t masks[] = {width, width & pred_random_value(state), 0,
				    width & (1ull << 63)};
		uint64_t subs[] = {0, 1ull << 63, pred_random_value(state),
				   width & pred_random_value(state)};
		uint64_t lims[] = {pred_random_value(state), 1, 0,
				   width & pred_random_value(state)};

		j->term[i] = (struct ttrace_pred_term){
		    .mask = masks[(r >> 8) % 4],
		    .sub = subs[(r >> 10) % 4],
		    .lim = lims[(r >> 12) % 4],
		    .at = sources[s].at,
		    .next = {target(state, i), target(state, i)},
		    .field = sources[s].field,
		    .bytes = sources[s].bytes,
		};
	}
}

TEST(pred_code_agrees_with_the_terms_of_every_shape)
{
	uint8_t *m = map_code();
	uint64_t state = 77;
	uint32_t verdicts[2] = {0};
	struct record rec;
	unsigned long saved;

	gs_enter(&rec, &saved);
	for (uint32_t round = 0; round < 20000; round++) {
		struct ttrace_pred_jumps j;

		terms(&state, &j);
		uint32_t n = load(m, &j, NULL);
		CHECK(n > 0, "round %u: not compiled", round);
		if (!n) {
			continue;
		}
		for (int e = 0; e < 10; e++) {
			struct ttrace_pred_event ev;
			bool same;

			event(&state, &rec, &ev);
			bool want = ttrace_pred_run(&j, &rec);
			int got = run(m, TTRACE_KIND_test_tick, rec.data, &same);
			CHECK(got == (want ? KEPT : REJECTED),
			      "round %u event %d: the code says %d, the terms %d", round, e, got,
			      want);
			CHECK(same, "round %u event %d: an argument register changed", round, e);
			verdicts[want]++;
		}
	}
	gs_leave(saved);
	munmap(m, MAP_BYTES);
	CHECK(verdicts[0] > 20000 && verdicts[1] > 20000, "rejected %u, kept %u: one-sided",
	      verdicts[0], verdicts[1]);
}

/* A predicate of test_tick's, its code's length, and the verdict over an event. */
struct row {
	const char *text;
	uint64_t seq;
	uint16_t cpu;
	int verdict;
	uint32_t bytes; /* 0: not compiled */
};

static const struct row rows[] = {
    /* the bench's (tools/bench tracepoint): movabs, cmp and jb 19; cmpw and jae 16; return 6 */
    {"seq > 0xffffffffffff && cpu <= 7", 5, 1, REJECTED, 41},
    {"seq < 0xffffffffffff && cpu > 7", 5, 1, REJECTED, 41},
    {"seq < 0xffffffffffff && cpu <= 7", 5, 1, KEPT, 41},
    {"seq < 0xffffffffffff && cpu <= 7", 5, 8, REJECTED, 41},
    /* a compare with an 8-bit immediate and one jump: 4 + 6, then the return 6 */
    {"seq == 5", 5, 0, KEPT, 16},
    {"seq != 5", 5, 0, REJECTED, 16},
    {"seq & 4", 5, 0, KEPT, 19},
    {"seq <= 0xffffffffffffffff", 5, 0, KEPT, 6},
    {"seq > 0xffffffffffffffff", 5, 0, REJECTED, 11},
    /* the name's walk 54; a word compared whole (7 letters and the NUL): movabs, cmp, jne 23 */
    {"comm == \"memtest\"", 5, 0, REJECTED, 83},
    {"seq == 5 || comm != \"memtest\"", 5, 0, KEPT, 93},
};

TEST(pred_code_compiles_the_bench_and_the_edges_as_it_should)
{
	uint8_t *m = map_code();
	struct record rec;
	unsigned long saved;

	gs_enter(&rec, &saved);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *row = &rows[r];
		struct ttrace_pred_prog prog;
		struct ttrace_pred_jumps j;
		char why[160] = "";
		bool same;

		CHECK(!ttrace_pred_compile(row->text, TTRACE_KIND_test_tick, 0, &prog, why,
					   sizeof(why)),
		      "%s: %s", row->text, why);
		ttrace_pred_lower(prog.insn, prog.n, &layout, &j);
		uint32_t n = load(m, &j, NULL);
		CHECK_EQ_UINT(n, row->bytes, row->text);
		if (!n) {
			continue;
		}
		memset(&rec, 0, sizeof(rec));
		rec.data[0] = row->seq;
		rec.cpu = row->cpu;
		CHECK_EQ_INT(run(m, TTRACE_KIND_test_tick, rec.data, &same), row->verdict,
			     row->text);
	}
	gs_leave(saved);
	munmap(m, MAP_BYTES);
}

TEST(pred_code_refuses_what_does_not_fit_or_reach)
{
	struct ttrace_pred_prog prog;
	struct ttrace_pred_jumps j;
	char why[160] = "";
	uint8_t buf[PRED_CODE_BYTES];

	CHECK(!ttrace_pred_compile("seq > 0xffffffffffff && cpu <= 7", TTRACE_KIND_test_tick, 0,
				   &prog, why, sizeof(why)),
	      "%s", why);
	ttrace_pred_lower(prog.insn, prog.n, &layout, &j);
	/* an exit 4 GiB away: no rel32 reaches it */
	const struct pred_code_env far = {.reject = 0x100000000ull + 0x1000, .fired = 0x1000};
	const struct pred_code_env near = {.reject = 0x2000, .fired = 0x3000};

	memset(buf, 0x5a, sizeof(buf));
	CHECK_EQ_UINT(pred_code_gen(&j, NULL, &far, 0x1000, buf, sizeof(buf)), 0, "far");
	CHECK_EQ_UINT(pred_code_gen(&j, NULL, &near, 0x1000, buf, 40), 0, "one byte short");
	for (size_t i = 0; i < sizeof(buf); i++) {
		CHECK(buf[i] == 0x5a, "byte %zu written by a refusal", i);
	}
	CHECK_EQ_UINT(pred_code_gen(&j, NULL, &near, 0x1000, buf, 41), 41, "just fits");
	/* a jump backwards: no lowering makes one, and no code has one */
	j.term[j.entry / TTRACE_PRED_TERM_AT(1) + 1].next[0] = j.entry;
	CHECK_EQ_UINT(pred_code_gen(&j, NULL, &near, 0x1000, buf, sizeof(buf)), 0, "backwards");
}
