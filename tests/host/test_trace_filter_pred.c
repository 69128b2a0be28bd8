/*
 * Tests FILTERS' `if PREDICATE` (common/trace_filter.c's parse,
 * common/trace_filter_pred.c's compile and run): each row a line of
 * words and the one line it is refused with, or events of several kinds
 * it keeps and leaves out; and a fuzzer of the read side's entry point,
 * filter words and mutated predicates through the parse, whose every
 * accepted line must compile and run (ASan and UBSan watch).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "common/trace_filter.h"
#include "common/trace_filter_pred.h"
#include "rand.h"
#include "test.h"

#define NCPUS	  4
#define WORDS_MAX 12
#define WHY_MAX	  1100
#define READER	  (TTRACE_FILTER_GUEST | TTRACE_FILTER_PRED)

static int count_words(const char *const *w)
{
	int n = 0;

	while (n < WORDS_MAX && w[n]) {
		n++;
	}
	return n;
}

struct refusal_row {
	const char *words[WORDS_MAX];
	uint32_t accept;
	const char *why; /* the whole line */
};

/* The six faults of issue 34 item 4 and the rest, each as `trace on ... if` says it. */
static const struct refusal_row refusal_rows[] = {
    {{"if", "rsult", "<", "0"}, READER, "bad filter: at 1: unknown field 'rsult'"},
    {{"if", "comm", "<", "\"x\""}, READER, "bad filter: at 6: comm compares only with == and !="},
    {{"kind=syscall_entry", "if", "result", "<", "0"},
     READER,
     "bad filter: at 1: syscall_entry has no field 'result'"},
    {{"kind=syscall_entry,mem_pf", "if", "result", "<", "0"},
     READER,
     "bad filter: at 1: none of these kinds has a field 'result'"},
    {{"if", "((((((((((pid", "==", "1))))))))))"},
     READER,
     "bad filter: at 9: too deep: more than 8 levels"},
    {{"if", "cpu", "==", "8"}, READER, "bad filter: at 8: value out of range (at most 7)"},
    {{"kind=syscall_exit", "if", "result", "==", "0x8000000000000000"},
     READER,
     "bad filter: at 11: value out of range for a signed field"},
    {{"if"}, READER, "bad filter: at 1: expected a term"},
    {{"if", "pid", "==", "1", "pid"}, READER, "bad filter: at 10: expected && || or the end"},
    {{"kind=mem_pf", "if", "pid", "==", "1"}, TTRACE_FILTER_GUEST, "bad filter 'if' (known:"},
    {{"kind=nosuch", "if", "pid", "==", "1"}, READER, "unknown kind 'nosuch'"},
};

TEST(filter_pred_refuses_bad_predicates_naming_the_place)
{
	for (size_t i = 0; i < sizeof(refusal_rows) / sizeof(refusal_rows[0]); i++) {
		const struct refusal_row *r = &refusal_rows[i];
		struct ttrace_filter f;
		char why[WHY_MAX] = "";
		int err = ttrace_filter_parse(count_words(r->words), (char *const *)r->words, NCPUS,
					      r->accept, &f, why, sizeof(why));

		CHECK_EQ_INT(err, -EINVAL, r->why);
		CHECK(!strncmp(why, r->why, strlen(r->why)) && !strchr(why, '\n'),
		      "row %zu: said \"%s\", expected \"%s\"", i, why, r->why);
	}
}

TEST(filter_pred_too_long_names_the_first_character_past_the_limit)
{
	/* "pid == " and 195 digits: 202 characters, past the limit before anything is parsed */
	static char word[TTRACE_PRED_TEXT_MAX + 1];
	char *words[] = {"if", "pid", "==", word};
	struct ttrace_filter f;
	char why[WHY_MAX] = "";

	memset(word, '1', TTRACE_PRED_TEXT_MAX - 5);
	CHECK_EQ_INT(ttrace_filter_parse(4, words, NCPUS, READER, &f, why, sizeof(why)), -EINVAL,
		     "201 characters");
	CHECK_EQ_STR(why, "bad filter: at 201: too long: more than 200 characters", "the line");
	word[TTRACE_PRED_TEXT_MAX - 7] = 0; /* 200 characters: within the limit, but too large */
	CHECK_EQ_INT(ttrace_filter_parse(4, words, NCPUS, READER, &f, why, sizeof(why)), -EINVAL,
		     "200 characters");
	CHECK_EQ_STR(why, "bad filter: at 8: number too large", "200 characters");
}

TEST(filter_pred_keeps_the_words_before_if_and_joins_the_rest)
{
	char *words[] = {"cpu=1", "if", "result", "<", "0", "&&", "comm", "==", "sysfuzz"};
	struct ttrace_filter f;
	char why[WHY_MAX] = "";

	CHECK_EQ_INT(ttrace_filter_parse(9, words, NCPUS, READER, &f, why, sizeof(why)), 0, why);
	CHECK_EQ_UINT(f.f.flags, TRACED_F_CPUS, "cpu=1");
	CHECK_EQ_STR(f.pred, "result < 0 && comm == sysfuzz", "the predicate");
	CHECK_EQ_INT(ttrace_filter_parse(1, words, NCPUS, READER, &f, why, sizeof(why)), 0, why);
	CHECK_EQ_STR(f.pred, "", "no if: no predicate");
}

struct keep_row {
	const char *words[WORDS_MAX];
	struct ttrace_record rec;
	const char *comm; /* as the reader's decoder names rec's pid */
	bool kept;
};

#define EXIT(result)                                                                               \
	{                                                                                          \
		.kind = TTRACE_KIND_syscall_exit, .pid = 5, .data = { 1, (uint64_t)(result) }      \
	}
#define FAULT                                                                                      \
	{                                                                                          \
		.kind = TTRACE_KIND_mem_pf, .pid = 5, .data = { 0x1000 }                           \
	}

static const struct keep_row keep_rows[] = {
    /* a field a kind lacks is false for its events, as in the kernel's filters */
    {{"if", "result", "<", "0"}, EXIT(-22), "sysfuzz", true},
    {{"if", "result", "<", "0"}, EXIT(0), "sysfuzz", false},
    {{"if", "result", "<", "0"}, FAULT, "sysfuzz", false},
    {{"if", "!(result", ">=", "0)"}, FAULT, "sysfuzz", true},
    {{"if", "result", "<", "0", "||", "vaddr", "==", "0x1000"}, FAULT, "sysfuzz", true},
    {{"kind=syscall_exit", "if", "result", "==", "-EINVAL"}, EXIT(-22), "sysfuzz", true},
    /* the filter words first: a kind they leave out never reaches the predicate */
    {{"kind=mem_pf", "if", "pid", "==", "5"}, EXIT(-22), "sysfuzz", false},
    {{"cat=syscall", "if", "pid", "==", "5"}, EXIT(-22), "sysfuzz", true},
    /* comm: the name the decoder finds, none for the kernel or an evicted record */
    {{"if", "comm", "==", "sysfuzz"}, EXIT(0), "sysfuzz", true},
    {{"if", "comm", "==", "\"sysfuzz\""}, EXIT(0), "sysfuzz", true},
    {{"if", "comm", "!=", "sysfuzz"}, EXIT(0), "init", true},
    {{"if", "comm", "==", "\"?\""}, EXIT(0), "?", false},
    {{"if", "comm", "!=", "kernel"}, {.kind = TTRACE_KIND_irq_timer, .pid = 0}, "kernel", true},
    {{"if", "ctx", "==", "irq"},
     {.kind = TTRACE_KIND_irq_timer, .ctx = TTRACE_CTX_IRQ},
     NULL,
     true},
    {{"if", "cpu", "==", "3", "&&", "tid", "==", "9"},
     {.kind = TTRACE_KIND_irq_timer, .cpu = 3, .tid = 9},
     NULL,
     true},
};

TEST(filter_pred_keeps_what_the_kernel_filter_would)
{
	static struct ttrace_filter_pred pred;

	for (size_t i = 0; i < sizeof(keep_rows) / sizeof(keep_rows[0]); i++) {
		const struct keep_row *r = &keep_rows[i];
		struct ttrace_filter f;
		char why[WHY_MAX] = "";

		CHECK_EQ_INT(ttrace_filter_parse(count_words(r->words), (char *const *)r->words,
						 NCPUS, READER, &f, why, sizeof(why)),
			     0, why);
		CHECK_EQ_INT(ttrace_filter_pred_compile(f.pred, &f.f, &pred, why, sizeof(why)), 0,
			     why);
		bool kept = ttrace_filter_match(&f.f, &r->rec, false) &&
			    ttrace_filter_pred_keeps_record(&pred, &r->rec, r->comm);
		CHECK(kept == r->kept, "row %zu (%s): should %sbe kept", i, f.pred,
		      r->kept ? "" : "not ");
	}
}

TEST(filter_pred_without_text_keeps_every_event)
{
	static struct ttrace_filter_pred pred;
	const struct traced_filter f = {0};
	const struct ttrace_record rec = EXIT(0);
	char why[WHY_MAX];

	CHECK_EQ_INT(ttrace_filter_pred_compile("", &f, &pred, why, sizeof(why)), 0, why);
	CHECK(ttrace_filter_pred_keeps_record(&pred, &rec, "sysfuzz"), "no predicate keeps all");
}

/* Pieces the fuzzer builds lines from: filter words, then a predicate's terms. */
static const char *const filter_words[] = {
    "kind=syscall_exit",
    "kind=mem_pf,syscall_exit",
    "cat=syscall",
    "cat=mem",
    "pid=5",
    "cpu=1",
    "kind=sched_switch",
    "last=3",
    "cat=proc",
};
static const char *const fields[] = {"result", "pid", "comm", "vaddr", "prev_state",
				     "ctx",    "cpu", "nr",   "tid",   "name"};
static const char *const ops[] = {"==", "!=", "<", ">=", "&", "<="};
static const char *const values[] = {"0",   "-1",      "0x10",	"-EINVAL", "blocked",
				     "irq", "sysfuzz", "\"x\"", "99999",   "7"};
static const char *const joins[] = {"&&", "||"};

#define PICK(state, list) ((char *)(list)[test_random(state) % (sizeof(list) / sizeof((list)[0]))])

/*
 * One random line: a few filter words, and mostly `if` and terms of
 * FIELD OP VALUE joined by && or ||; a quarter of the lines with one
 * character of one word changed to any printable one (a "!", a "(", a
 * quote, a digit: the parser's every path).
 */
static int random_line(uint64_t *state, char *words[WORDS_MAX], char mutated[32])
{
	int n = (int)(test_random(state) % 3);

	for (int i = 0; i < n; i++) {
		words[i] = PICK(state, filter_words);
	}
	if (test_random(state) % 8) {
		words[n++] = (char *)TTRACE_FILTER_IF;
		while (n + 4 <= WORDS_MAX) {
			words[n++] = PICK(state, fields);
			words[n++] = PICK(state, ops);
			words[n++] = PICK(state, values);
			if (n + 4 > WORDS_MAX || test_random(state) % 2) {
				break;
			}
			words[n++] = PICK(state, joins);
		}
	}
	if (n && test_random(state) % 4 == 0) {
		int at = (int)(test_random(state) % (uint64_t)n);
		size_t len = strlen(words[at]);
		memcpy(mutated, words[at], len + 1);
		mutated[test_random(state) % (len + 1)] = (char)(' ' + test_random(state) % 95);
		mutated[len + 1] = 0;
		words[at] = mutated;
	}
	return n;
}

TEST(filter_pred_fuzz_parse_accepts_only_what_compiles_and_runs)
{
	static struct ttrace_filter_pred pred;
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};
	uint32_t accepted = 0, with_pred = 0;
	uint64_t state = 3434;

	for (uint32_t round = 0; round < 40000; round++) {
		char *words[WORDS_MAX];
		char mutated[32];
		struct ttrace_filter f;
		char why[WHY_MAX] = "";
		int n = random_line(&state, words, mutated);

		if (ttrace_filter_parse(n, words, NCPUS, READER | TTRACE_FILTER_WHOLE, &f, why,
					sizeof(why))) {
			CHECK(why[0] && !strchr(why, '\n'), "a refusal is one line: \"%s\"", why);
			continue;
		}
		accepted++;
		/* what the parse accepted, every reader compiles: no request fails later */
		int err = ttrace_filter_pred_compile(f.pred, &f.f, &pred, why, sizeof(why));
		CHECK(!err, "accepted \"%s\" but compile said %s", f.pred, why);
		with_pred += f.pred[0] != 0;
		for (uint16_t k = 0; !err && k <= TTRACE_KIND_LIMIT; k++) {
			struct ttrace_record rec = {.kind = k, .pid = (uint32_t)round % 3};
			memcpy(rec.data, data, sizeof(data));
			rec.data[0] = test_random(&state);
			rec.data[1] = test_random(&state) % 4 - 2;
			(void)ttrace_filter_pred_keeps_record(&pred, &rec, round % 2 ? "x" : NULL);
		}
	}
	CHECK(with_pred > 500,
	      "only %u lines with a predicate were accepted: the fuzzer tests little", with_pred);
	CHECK(accepted > with_pred, "no line without a predicate was accepted");
}
