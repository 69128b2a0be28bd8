/*
 * Tests common/trace_names.c and common/trace_format.c: the kind table
 * generated from abi/trace_kinds.def (every kind named once, in one
 * category, with arguments a decoder can parse), category lists as the
 * command line and the shell give them, and event lines exactly as the
 * flight recorder and traced print them, including string arguments
 * whose aux record is gone.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/proc.h"
#include "abi/syscall.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_aux.h"
#include "common/trace_format.h"
#include "common/trace_header.h"
#include "common/trace_names.h"
#include "test.h"
#include "trace/aux_write.h"

TEST(trace_names_every_kind_is_named_once_with_parsable_args)
{
	uint32_t kinds = 0;

	for (uint32_t kind = 0; kind < TTRACE_KIND_LIMIT; kind++) {
		const struct ttrace_kind_info *k = ttrace_kind_info(kind);
		struct ttrace_arg arg;
		const char *spec;
		uint32_t nargs = 0;
		int got;

		if (!k) {
			continue;
		}
		kinds++;
		CHECK(k->name[0], "kind %u has a name", kind);
		CHECK(k->category && !(k->category & (k->category - 1)) &&
			  (k->category & TTRACE_CAT_ALL),
		      "%s: one known category", k->name);
		for (spec = k->args; (got = ttrace_arg_next(&spec, &arg)) == 1;) {
			nargs++;
		}
		CHECK_EQ_INT(got, 0, k->name);
		CHECK(nargs >= 1 && nargs <= TTRACE_HEAD_WORDS, "%s: %u arguments fit one entry",
		      k->name, nargs);
		for (uint32_t other = 0; other < kind; other++) {
			const struct ttrace_kind_info *o = ttrace_kind_info(other);

			CHECK(!o || strcmp(o->name, k->name), "%s named twice", k->name);
		}
	}
	CHECK_EQ_UINT(kinds, TTRACE_KIND_LIMIT - 1, "ids run from 1 without a gap");
	CHECK(ttrace_kind_info(0) == NULL, "0 is no kind");
	CHECK(ttrace_kind_info(TTRACE_KIND_LIMIT) == NULL, "past the last kind");
}

TEST(trace_names_kinds_and_categories)
{
	static const struct {
		uint32_t kind;
		const char *name;
		uint64_t category;
		const char *category_name;
	} rows[] = {
	    {TTRACE_KIND_mem_pf, "mem_pf", TTRACE_CAT(MEM), "mem"},
	    {TTRACE_KIND_mem_frame_free, "mem_frame_free", TTRACE_CAT(MEM), "mem"},
	    {TTRACE_KIND_sched_switch, "sched_switch", TTRACE_CAT(SCHED), "sched"},
	    {TTRACE_KIND_syscall_exit, "syscall_exit", TTRACE_CAT(SYSCALL), "syscall"},
	    {TTRACE_KIND_ipc_fastpath, "ipc_fastpath", TTRACE_CAT(IPC), "ipc"},
	    {TTRACE_KIND_irq_timer, "irq_timer", TTRACE_CAT(IRQ), "irq"},
	    {TTRACE_KIND_proc_spawn, "proc_spawn", TTRACE_CAT(PROC), "proc"},
	    {TTRACE_KIND_user, "user", TTRACE_CAT(USER), "user"},
	    {TTRACE_KIND_test_tick, "test_tick", TTRACE_CAT(TEST), "test"},
	    {TTRACE_KIND_func_entry, "func_entry", TTRACE_CAT(FUNC), "func"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ttrace_kind_info *k = ttrace_kind_info(rows[i].kind);

		CHECK(k != NULL, "%s is in the table", rows[i].name);
		if (k) {
			CHECK_EQ_STR(k->name, rows[i].name, rows[i].name);
			CHECK_EQ_UINT(k->category, rows[i].category, rows[i].name);
			CHECK_EQ_STR(ttrace_category_name((uint32_t)__builtin_ctzll(k->category)),
				     rows[i].category_name, rows[i].name);
		}
	}
	CHECK(ttrace_category_name(10) == NULL, "no eleventh category");
	CHECK_EQ_UINT(TTRACE_CAT_ALL, 0x3ff, "ten categories");
}

TEST(trace_names_category_lists_parse)
{
	static const struct {
		const char *list;
		int want;
		uint64_t mask;	 /* when accepted */
		const char *bad; /* the word refused */
	} rows[] = {
	    {"mem", 0, TTRACE_CAT(MEM), NULL},
	    {"mem,sched", 0, TTRACE_CAT(MEM) | TTRACE_CAT(SCHED), NULL},
	    {"sched mem", 0, TTRACE_CAT(MEM) | TTRACE_CAT(SCHED), NULL},
	    {" ,ipc,, irq ", 0, TTRACE_CAT(IPC) | TTRACE_CAT(IRQ), NULL},
	    {"all", 0, TTRACE_CAT_ALL, NULL},
	    {"mem,all", 0, TTRACE_CAT_ALL, NULL},
	    {"", 0, 0, NULL},
	    {"test", 0, TTRACE_CAT(TEST), NULL},
	    {"bogus", -EINVAL, 0, "bogus"},
	    {"mem,bogus,sched", -EINVAL, 0, "bogus"},
	    {"memx", -EINVAL, 0, "memx"},
	    {"me", -EINVAL, 0, "me"},
	    {"MEM", -EINVAL, 0, "MEM"},
	    {"mem;sched", -EINVAL, 0, "mem;sched"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t mask = 0x1234;
		const char *bad = NULL;
		size_t bad_len = 0;
		char word[32] = "";

		CHECK_EQ_INT(ttrace_category_parse(rows[i].list, &mask, &bad, &bad_len),
			     rows[i].want, rows[i].list);
		CHECK_EQ_UINT(mask, rows[i].want ? 0x1234 : rows[i].mask, rows[i].list);
		if (bad) {
			snprintf(word, sizeof(word), "%.*s", (int)bad_len, bad);
		}
		CHECK_EQ_STR(bad ? word : NULL, rows[i].bad, rows[i].list);
	}
}

TEST(trace_names_category_masks_print)
{
	static const struct {
		uint64_t mask;
		size_t size;
		const char *text;
		int len;
	} rows[] = {
	    {0, 32, "none", 4},
	    {TTRACE_CAT(MEM), 32, "mem", 3},
	    {TTRACE_CAT(MEM) | TTRACE_CAT(SCHED), 32, "mem,sched", 9},
	    {TTRACE_CAT_ALL, 64, "mem,sched,syscall,ipc,irq,proc,user,test,prof,func", 50},
	    {1ull << 40, 32, "0x10000000000", 13},
	    {TTRACE_CAT(USER) | 1ull << 40, 32, "user,0x10000000000", 18},
	    {TTRACE_CAT(MEM) | TTRACE_CAT(SCHED), 6, "mem,s", 9},
	    {TTRACE_CAT(MEM) | TTRACE_CAT(SCHED), 3, "me", 9},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[64];

		CHECK_EQ_INT(ttrace_category_format(rows[i].mask, buf, rows[i].size), rows[i].len,
			     rows[i].text);
		CHECK_EQ_STR(buf, rows[i].text, rows[i].text);
	}
	CHECK_EQ_INT(ttrace_category_format(TTRACE_CAT(IRQ), NULL, 0), 3, "length only");
}

TEST(trace_names_argument_lists_parse)
{
	static const struct {
		const char *spec;
		int want[3]; /* ttrace_arg_next's results in turn */
		const char *names[2];
		char formats[2];
	} rows[] = {
	    {"vaddr:x len:u", {1, 1, 0}, {"vaddr", "len"}, {'x', 'u'}},
	    {"  status:d ", {1, 0, 0}, {"status"}, {'d'}},
	    {"name:s", {1, 0, 0}, {"name"}, {'s'}},
	    {"nr:y", {1, 0, 0}, {"nr"}, {'y'}},
	    {"func:k caller:k", {1, 1, 0}, {"func", "caller"}, {'k', 'k'}},
	    {"", {0, 0, 0}, {NULL}, {0}},
	    {"bad", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {":x", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:q", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:xx", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:x b", {1, -EINVAL, 0}, {"a"}, {'x'}},
	    {"outcome:u=pf_outcome r:d=errno", {1, 1, 0}, {"outcome", "r"}, {'u', 'd'}},
	    {"a:u=nosuch", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:u=", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:x=errno", {-EINVAL, 0, 0}, {NULL}, {0}},
	    {"a:s=errno", {-EINVAL, 0, 0}, {NULL}, {0}},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *spec = rows[i].spec;

		for (int k = 0; k < 3; k++) {
			struct ttrace_arg arg;
			char name[32];
			int got = ttrace_arg_next(&spec, &arg);

			CHECK_EQ_INT(got, rows[i].want[k], rows[i].spec);
			if (got != 1) {
				break;
			}
			snprintf(name, sizeof(name), "%.*s", (int)arg.name_len, arg.name);
			CHECK_EQ_STR(name, rows[i].names[k], rows[i].spec);
			CHECK_EQ_INT(arg.format, rows[i].formats[k], rows[i].spec);
		}
	}
}

#define HZ   1000000000ull /* 1 GHz: a microsecond is 1000 ticks */
#define BOOT 5000000ull

/* An area of one CPU; with_names: the boot names in its durable aux part. */
static void names_area(struct ttrace_area *a, uint64_t tsc_hz, bool with_names)
{
	const struct ttrace_geometry g = {.num_cpus = 1,
					  .ring_entries = TTRACE_RING_ENTRIES_MIN,
					  .aux_durable_size =
					      with_names ? ttrace_aux_names_size() : 64,
					  .aux_ring_size = TTRACE_AUX_RING_MIN,
					  .tsc_hz = tsc_hz,
					  .boot_tsc = BOOT};

	test_area_get(a, &g, false);
	if (with_names && ttrace_aux_write_names(a, BOOT)) {
		abort();
	}
}

#define NAMES_PID 99 /* the names below are its: no event row has this pid */

/* Writes a spawn record (tag PROC, id pid | parent << 32) naming pid, as the kernel does. */
static uint64_t write_proc(const struct ttrace_area *a, uint32_t pid, const char *name)
{
	struct ttrace_aux_item it = {.tag = TTRACE_AUX_PROC,
				     .id = pid | 1ull << 32,
				     .str = name,
				     .len = (uint32_t)strlen(name)};
	uint64_t ref;

	if (ttrace_aux_write(a, &it, &ref)) {
		abort();
	}
	return ref;
}

static struct ttrace_uevent_slot uevent_slots[UEVENT_MAX];

/* rec's line, decoded as traced decodes it; returns the whole length. */
static int format(char *line, size_t size, const struct ttrace_record *rec,
		  const struct ttrace_area *a)
{
	static struct ttrace_decoder d;

	ttrace_decoder_init(&d, a, uevent_slots);
	return ttrace_format_event(line, size, rec, &d);
}

TEST(trace_format_prints_one_line_an_event)
{
	struct ttrace_area a;
	char long_name[101];
	uint64_t init, evicted, quoted, longer;

	names_area(&a, HZ, false);
	memset(long_name, 'n', 100);
	long_name[100] = '\0';
	write_proc(&a, 8, "old");
	evicted = write_proc(&a, NAMES_PID, "gone");
	for (int i = 0; i < 200; i++) {
		write_proc(&a, NAMES_PID, "filler");
	}
	write_proc(&a, 7, "memtest");
	init = write_proc(&a, NAMES_PID, "init");
	quoted = write_proc(&a, NAMES_PID, "a \"b\"\n");
	longer = write_proc(&a, NAMES_PID, long_name);

	const struct {
		const char *name;
		struct ttrace_record rec;
		const char *line;
	} rows[] = {
	    {"a page fault",
	     {.ts = BOOT + 1234567000,
	      .cpu = 1,
	      .pid = 3,
	      .tid = 3,
	      .kind = TTRACE_KIND_mem_pf,
	      .data = {0x400000, 0x401020, 6, TTRACE_PF_MAPPED}},
	     "[    1.234567] cpu=1 pid=3 tid=3 comm=? mem_pf vaddr=0x400000 rip=0x401020 err=0x6 "
	     "outcome=mapped"},
	    {"an outcome as its name",
	     {.ts = BOOT, .kind = TTRACE_KIND_mem_pf, .data = {0x1000, 0x2000, 7, TTRACE_PF_COW}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel mem_pf vaddr=0x1000 rip=0x2000 err=0x7 "
	     "outcome=cow"},
	    {"an outcome no name has, as its number",
	     {.ts = BOOT, .kind = TTRACE_KIND_mem_pf, .data = {0, 0, 0, TTRACE_PF_LIMIT}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel mem_pf vaddr=0x0 rip=0x0 err=0x0 "
	     "outcome=4"},
	    {"a copy's direction",
	     {.ts = BOOT, .kind = TTRACE_KIND_mem_copy, .data = {0x1000, 56, TTRACE_COPY_TO_USER}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel mem_copy addr=0x1000 len=56 "
	     "dir=to_user"},
	    {"a thread's state",
	     {.ts = BOOT, .kind = TTRACE_KIND_sched_switch, .data = {3, THREAD_BLOCKED, 0}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel sched_switch prev_tid=3 "
	     "prev_state=blocked next_tid=0"},
	    {"an error result, by its name",
	     {.ts = BOOT, .kind = TTRACE_KIND_syscall_exit, .data = {7, (uint64_t)-ETIMEDOUT}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_exit nr=7 result=-ETIMEDOUT"},
	    {"a result no error has, as its number",
	     {.ts = BOOT, .kind = TTRACE_KIND_syscall_exit, .data = {7, (uint64_t)-3}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_exit nr=7 result=-3"},
	    {"a positive result, as its number",
	     {.ts = BOOT, .kind = TTRACE_KIND_syscall_exit, .data = {7, 110}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_exit nr=7 result=110"},
	    {"a program's name, from its spawn record",
	     {.ts = BOOT, .pid = 7, .tid = 9, .kind = TTRACE_KIND_test_tick, .data = {1}},
	     "[    0.000000] cpu=0 pid=7 tid=9 comm=memtest test_tick seq=1"},
	    {"a program whose spawn record was evicted",
	     {.ts = BOOT, .pid = 8, .tid = 10, .kind = TTRACE_KIND_test_tick, .data = {2}},
	     "[    0.000000] cpu=0 pid=8 tid=10 comm=? test_tick seq=2"},
	    {"a negative result",
	     {.ts = BOOT, .kind = TTRACE_KIND_syscall_exit, .data = {7, (uint64_t)-22}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_exit nr=7 result=-EINVAL"},
	    {"before boot_tsc",
	     {.ts = 10, .kind = TTRACE_KIND_irq_entry, .data = {32}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel irq_entry vector=32"},
	    {"a name in aux",
	     {.ts = BOOT + 999999999999, .kind = TTRACE_KIND_proc_spawn, .data = {3, 1, init}},
	     "[  999.999999] cpu=0 pid=0 tid=0 comm=kernel proc_spawn pid=3 parent=1 "
	     "name=\"init\""},
	    {"a name evicted from aux",
	     {.ts = BOOT, .kind = TTRACE_KIND_proc_spawn, .data = {4, 1, evicted}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel proc_spawn pid=4 parent=1 "
	     "name=<evicted>"},
	    /* init is at 64 + 203 * 40 = 0x1ff8: past "old", "gone", the fillers and "memtest" */
	    {"a reference to no record",
	     {.ts = BOOT, .kind = TTRACE_KIND_proc_spawn, .data = {4, 1, init + 8}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel proc_spawn pid=4 parent=1 name=<bad "
	     "0x2000>"},
	    {"a name with quotes",
	     {.ts = BOOT, .kind = TTRACE_KIND_proc_spawn, .data = {5, 1, quoted}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel proc_spawn pid=5 parent=1 name=\"a "
	     "?b??\""},
	    {"a long name",
	     {.ts = BOOT, .kind = TTRACE_KIND_proc_spawn, .data = {6, 1, longer}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel proc_spawn pid=6 parent=1 "
	     "name=\"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\""},
	    {"a user event",
	     {.ts = BOOT,
	      .pid = 9,
	      .tid = 10,
	      .kind = TTRACE_KIND_user,
	      .ncont = 1,
	      .data = {UEVENT_WORD0(3, 2, 20), 0x10, 0, 0x20}},
	     "[    0.000000] cpu=0 pid=9 tid=10 comm=? user event=3 gen=2 len=20 "
	     "data=0x10,0x0,0x20"},
	    {"a user event without payload",
	     {.ts = BOOT, .kind = TTRACE_KIND_user, .data = {UEVENT_WORD0(4, 1, 0)}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel user event=4 gen=1 len=0"},
	    {"a kind the table does not know",
	     {.ts = BOOT, .kind = 999, .data = {1, 2}},
	     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel kind=999 d0=0x1 d1=0x2 d2=0x0 d3=0x0 "
	     "d4=0x0"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char line[256];

		CHECK_EQ_INT(format(line, sizeof(line), &rows[i].rec, &a),
			     (int)strlen(rows[i].line), rows[i].name);
		CHECK_EQ_STR(line, rows[i].line, rows[i].name);
	}
	test_area_put(&a);
}

TEST(trace_format_names_syscalls_from_the_durable_aux_records)
{
	struct ttrace_area a;
	struct ttrace_record rec = {
	    .ts = BOOT, .kind = TTRACE_KIND_syscall_entry, .data = {SYS_spawn, 0x1000}};
	char line[256];

	names_area(&a, HZ, true);
	format(line, sizeof(line), &rec, &a);
	CHECK_EQ_STR(
	    line,
	    "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_entry nr=7 name=spawn a0=0x1000 "
	    "a1=0x0 a2=0x0",
	    "a known syscall");
	rec.data[0] = 999;
	format(line, sizeof(line), &rec, &a);
	CHECK_EQ_STR(line,
		     "[    0.000000] cpu=0 pid=0 tid=0 comm=kernel syscall_entry nr=999 a0=0x1000 "
		     "a1=0x0 a2=0x0",
		     "a number no syscall has");
	test_area_put(&a);
}

/* Records event id's definition in a's aux ring, as the kernel does at registration. */
static void define(const struct ttrace_area *a, uint32_t id, uint32_t gen, const char *desc)
{
	struct ttrace_aux_item it = {.id = UEVENT_AUX_ID(id, gen),
				     .ts = BOOT,
				     .str = desc,
				     .len = (uint32_t)strlen(desc),
				     .tag = TTRACE_AUX_USER_EVENT};
	uint64_t ref;

	if (ttrace_aux_write(a, &it, &ref)) {
		abort();
	}
}

TEST(trace_format_decodes_user_events_with_their_definition_from_aux)
{
	struct ttrace_area a;
	struct ttrace_record rec = {.ts = BOOT, .pid = 5, .tid = 6, .kind = TTRACE_KIND_user};
	const char payload[] = "\x01\x00\x00\x00hi";
	char line[256];

	names_area(&a, HZ, false);
	define(&a, 7, 1, "demo u32 a;char[3] s");
	define(&a, 8, 1, "empty");
	define(&a, 8, 2, "other u8 x");
	rec.data[0] = UEVENT_WORD0(7, 1, 7);
	memcpy(&rec.data[1], payload, 7);
	format(line, sizeof(line), &rec, &a);
	CHECK_EQ_STR(line, "[    0.000000] cpu=0 pid=5 tid=6 comm=? user:demo a=1 s=\"hi\"",
		     "fields");
	rec.data[0] = UEVENT_WORD0(8, 1, 0);
	format(line, sizeof(line), &rec, &a);
	CHECK_EQ_STR(line, "[    0.000000] cpu=0 pid=5 tid=6 comm=? user:empty", "no fields");
	rec.data[0] = UEVENT_WORD0(8, 3, 0);
	format(line, sizeof(line), &rec, &a);
	CHECK_EQ_STR(line, "[    0.000000] cpu=0 pid=5 tid=6 comm=? user event=8 gen=3 len=0",
		     "a generation without a definition prints raw, never with another's");
	test_area_put(&a);
}

TEST(trace_format_without_a_tsc_rate_and_cut_short)
{
	struct ttrace_record rec = {.ts = 123456, .kind = TTRACE_KIND_test_tick, .data = {42}};
	struct ttrace_area a;
	char line[16];

	names_area(&a, 0, false);
	CHECK_EQ_INT(format(line, sizeof(line), &rec, &a), 55, "whole length");
	CHECK_EQ_STR(line, "[123456] cpu=0 ", "cut, NUL-terminated");
	test_area_put(&a);
}
