/*
 * Tests common/trace_filter.c, the one parser and matcher of FILTERS:
 * each row a line of words and what the parser makes of them (the flags
 * and values it sets, or the one line it refuses them with), and
 * records that pass or fail the filter of a row.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "common/trace_filter.h"
#include "test.h"

#define NCPUS	  4
#define WORDS_MAX 4
#define WHY_MAX	  1100

struct parse_row {
	const char *words[WORDS_MAX];
	uint32_t accept;
	int err;
	uint32_t flags;	 /* on success */
	const char *why; /* on failure: the start of the refusal */
};

static const struct parse_row parse_rows[] = {
    {{"cpu=1", "cpu=3"}, TTRACE_FILTER_GUEST, 0, TRACED_F_CPUS, NULL},
    {{"tree=2"}, TTRACE_FILTER_GUEST, 0, TRACED_F_PID | TRACED_F_TREE, NULL},
    {{"since=1.5", "until=2"}, TTRACE_FILTER_GUEST, 0, TRACED_F_SINCE | TRACED_F_UNTIL, NULL},
    {{"comm=memtest"}, TTRACE_FILTER_HOST, 0, 0, NULL},
    {{"comm=memtest"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "unknown filter 'comm'"},
    {{"cpu=4"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "bad cpu '4' (cpus: 0 to 3)"},
    {{"pid=99999999999"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "bad id in 'pid=99999999999'"},
    {{"pid=1", "tree=1"}, TTRACE_FILTER_HOST, -EINVAL, 0, "pid=1 and tree=1 cannot both hold"},
    {{"pid=1", "pid=2"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "pid=1 and pid=2 cannot both hold"},
    {{"last=2", "count=3"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "last=2 and count=3"},
    {{"since=2", "until=1"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "since=2 is not before until=1"},
    {{"since=1.1234567891"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "bad time in 'since="},
    {{"kind=mem_pf", "cat=ipc"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "kind mem_pf is not in cat=ipc"},
    {{"kind=nosuch"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "unknown kind 'nosuch'"},
    {{"cat=memory"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "unknown category 'memory'"},
    {{"cpu"}, TTRACE_FILTER_GUEST, -EINVAL, 0, "bad filter 'cpu'"},
    {{"cpu=1", "tid=4", "comm=init"}, TTRACE_FILTER_STREAM, 0, TRACED_F_CPUS | TRACED_F_TID, NULL},
    {{"last=2"}, TTRACE_FILTER_STREAM, -EINVAL, 0, "unknown filter 'last' (known: cpu= pid= tid="},
    {{"since=1"}, TTRACE_FILTER_STREAM, -EINVAL, 0, "unknown filter 'since'"},
    {{"tree=1"}, TTRACE_FILTER_STREAM, -EINVAL, 0, "unknown filter 'tree'"},
};

static int count_words(const char *const *w)
{
	int n = 0;

	while (n < WORDS_MAX && w[n]) {
		n++;
	}
	return n;
}

TEST(trace_filter_parses_the_words_and_refuses_in_one_line)
{
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct parse_row *r = &parse_rows[i];
		struct ttrace_filter f;
		char why[WHY_MAX] = "";
		int err = ttrace_filter_parse(count_words(r->words), (char *const *)r->words, NCPUS,
					      r->accept, &f, why, sizeof(why));

		CHECK_EQ_INT(err, r->err, r->words[0]);
		if (!err) {
			CHECK_EQ_UINT(f.f.flags, r->flags, r->words[0]);
		} else {
			CHECK(!strncmp(why, r->why, strlen(r->why)) && !strchr(why, '\n'),
			      "%s: said \"%s\", expected \"%s...\"", r->words[0], why, r->why);
		}
	}
}

TEST(trace_filter_values_land_where_traced_reads_them)
{
	char *words[] = {"cpu=1", "cpu=3", "since=1.5", "until=2.000000001", "comm=init"};
	struct ttrace_filter f;
	char why[WHY_MAX];

	CHECK_EQ_INT(ttrace_filter_parse(5, words, NCPUS, TTRACE_FILTER_HOST, &f, why, sizeof(why)),
		     0, why);
	CHECK_EQ_UINT(f.f.cpus, 0xa, "cpu=1 cpu=3");
	CHECK_EQ_UINT(f.f.since_ns, 1500000000, "since=1.5");
	CHECK_EQ_UINT(f.f.until_ns, 2000000001, "until=2.000000001");
	CHECK(f.has_comm && !strcmp(f.comm, "init"), "comm=init: %s", f.comm);
}

struct match_row {
	const char *words[WORDS_MAX];
	struct ttrace_record rec;
	bool in_tree;
	bool match;
};

static const struct match_row match_rows[] = {
    {{"cpu=1"}, {.cpu = 1, .kind = TTRACE_KIND_mem_pf}, false, true},
    {{"cpu=1"}, {.cpu = 2, .kind = TTRACE_KIND_mem_pf}, false, false},
    {{"pid=3"}, {.pid = 3, .kind = TTRACE_KIND_mem_pf}, false, true},
    {{"pid=3"}, {.pid = 4, .kind = TTRACE_KIND_mem_pf}, false, false},
    {{"tree=3"}, {.pid = 9, .kind = TTRACE_KIND_mem_pf}, true, true},
    {{"tree=3"}, {.pid = 3, .kind = TTRACE_KIND_mem_pf}, false, false},
    {{"tid=7"}, {.tid = 7, .kind = TTRACE_KIND_ipc_call}, false, true},
    {{"cat=ipc"}, {.kind = TTRACE_KIND_ipc_call}, false, true},
    {{"cat=ipc"}, {.kind = TTRACE_KIND_mem_pf}, false, false},
    {{"cat=all"}, {.kind = 200}, false, false}, /* a kind the table lacks is in no category */
    {{"kind=mem_pf,ipc_call"}, {.kind = TTRACE_KIND_ipc_call}, false, true},
    {{"kind=mem_pf"}, {.kind = TTRACE_KIND_ipc_call}, false, false},
};

TEST(trace_filter_matches_as_traced_did)
{
	for (size_t i = 0; i < sizeof(match_rows) / sizeof(match_rows[0]); i++) {
		const struct match_row *r = &match_rows[i];
		struct ttrace_filter f;
		char why[WHY_MAX];

		CHECK_EQ_INT(ttrace_filter_parse(count_words(r->words), (char *const *)r->words,
						 NCPUS, TTRACE_FILTER_GUEST, &f, why, sizeof(why)),
			     0, why);
		CHECK(ttrace_filter_match(&f.f, &r->rec, r->in_tree) == r->match,
		      "%s: row %zu should %smatch", r->words[0], i, r->match ? "" : "not ");
	}
}

TEST(trace_filter_window_is_since_inclusive_until_exclusive)
{
	struct traced_filter f = {
	    .flags = TRACED_F_SINCE | TRACED_F_UNTIL, .since_ns = 100, .until_ns = 200};

	CHECK(!ttrace_filter_in_window(&f, 99), "99 is before since");
	CHECK(ttrace_filter_in_window(&f, 100), "100 is since");
	CHECK(ttrace_filter_in_window(&f, 199), "199 is before until");
	CHECK(!ttrace_filter_in_window(&f, 200), "200 is until");
}

/* The words a filter is shown with (a saved file's selection), and that they parse back. */
static const struct {
	const char *words[WORDS_MAX];
	const char *pred;
	const char *shown;
} words_rows[] = {
    {{NULL}, NULL, ""},
    {{NULL}, "result < 0", "if result < 0"},
    {{"cpu=3", "cpu=1"}, NULL, "cpu=1 cpu=3"},
    {{"tree=2", "tid=5"}, NULL, "tid=5 tree=2"},
    {{"pid=2", "kind=mem_pf,ipc_call"}, "tid > 1", "pid=2 kind=mem_pf,ipc_call if tid > 1"},
    {{"cat=sched,mem", "last=20"}, NULL, "cat=mem,sched last=20"},
    {{"since=1.5", "until=2.000000001", "count=3"},
     NULL,
     "count=3 since=1.500000000 until=2.000000001"},
};

TEST(trace_filter_words_show_what_parses_back)
{
	for (size_t i = 0; i < sizeof(words_rows) / sizeof(words_rows[0]); i++) {
		struct ttrace_filter f, back;
		char why[WHY_MAX], shown[256];
		char *argv[16];
		int argc = 0;

		CHECK_EQ_INT(ttrace_filter_parse(count_words(words_rows[i].words),
						 (char *const *)words_rows[i].words, NCPUS,
						 TTRACE_FILTER_HOST, &f, why, sizeof(why)),
			     0, why);
		ttrace_filter_words(&f.f, words_rows[i].pred, shown, sizeof(shown));
		CHECK_EQ_STR(shown, words_rows[i].shown, "the words shown");
		for (char *w = strtok(shown, " "); w && argc < 16; w = strtok(NULL, " ")) {
			argv[argc++] = w;
		}
		CHECK_EQ_INT(ttrace_filter_parse(argc, argv, NCPUS, TTRACE_FILTER_HOST, &back, why,
						 sizeof(why)),
			     0, why);
		CHECK(!memcmp(&back.f, &f.f, sizeof(f.f)), "row %zu: the words parse back", i);
		CHECK_EQ_STR(back.pred, words_rows[i].pred ? words_rows[i].pred : "", "predicate");
	}
}

TEST(trace_filter_words_are_cut_to_size)
{
	struct traced_filter f = {.flags = TRACED_F_CPUS | TRACED_F_PID, .cpus = 0xf, .pid = 7};
	char shown[12];

	ttrace_filter_words(&f, "pid == 7", shown, sizeof(shown));
	CHECK_EQ_STR(shown, "cpu=0 cpu=1", "cut");
}
