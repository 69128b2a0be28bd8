/*
 * Tests kernel/trace/name_holds.c and the aux writer's moves
 * (ttrace_aux_write_keeping()): a program name stays readable through any
 * amount of aux traffic while its process lives and while the rings hold
 * events written before it was freed, and goes once they are gone; the
 * writer never moves more than a ring's worth for one record, so a ring
 * of kept names still takes new records; every record not moved is
 * counted as evicted.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "abi/trace.h"
#include "area.h"
#include "common/trace_aux.h"
#include "common/trace_header.h"
#include "test.h"
#include "trace/aux_write.h"
#include "trace/name_holds.h"

#define RING_ENTRIES TTRACE_RING_ENTRIES_MIN
#define TEXT_LEN     40 /* a filler record: 72 bytes */

static struct name_holds holds; /* big: not on the stack */

static void holds_area(struct ttrace_area *a, uint32_t cpus)
{
	const struct ttrace_geometry g = {.num_cpus = cpus,
					  .ring_entries = RING_ENTRIES,
					  .aux_durable_size = 64,
					  .aux_ring_size = TTRACE_AUX_RING_MIN};

	test_area_get(a, &g, false);
	name_holds_init(&holds, a);
}

/* Writes the name of pid through the keeper and holds it, as the kernel's spawn does. */
static void spawn(const struct ttrace_area *a, uint32_t pid, const char *name)
{
	struct ttrace_aux_keeper k = name_holds_keeper(&holds);
	struct ttrace_aux_item it = {.id = pid | (uint64_t)1 << 32,
				     .str = name,
				     .len = (uint32_t)strlen(name),
				     .tag = TTRACE_AUX_PROC};
	uint64_t ref;

	CHECK_EQ_INT(ttrace_aux_write_keeping(a, &it, &k, &ref), 0, name);
	name_holds_add(&holds, pid, ref);
}

/* Writes n filler records through the keeper: other aux traffic. */
static void traffic(const struct ttrace_area *a, uint32_t n)
{
	struct ttrace_aux_keeper k = name_holds_keeper(&holds);
	char s[TEXT_LEN];
	uint64_t ref;

	memset(s, 'x', sizeof(s));
	for (uint32_t i = 0; i < n; i++) {
		struct ttrace_aux_item it = {
		    .id = i, .str = s, .len = TEXT_LEN, .tag = TTRACE_AUX_TEXT};

		CHECK_EQ_INT(ttrace_aux_write_keeping(a, &it, &k, &ref), 0, "filler");
	}
}

struct find {
	uint32_t pid;
	uint64_t pos;
	uint32_t seen; /* records of that pid in the ring */
};

static bool match(void *ctx, const struct ttrace_aux_record *rec, uint64_t pos)
{
	struct find *f = ctx;

	if (rec->tag == TTRACE_AUX_PROC && (uint32_t)rec->id == f->pid) {
		f->pos = pos;
		f->seen++;
	}
	return true;
}

/* The name of pid as a reader finds it (the newest record), or "" if evicted. */
static const char *name_of(const struct ttrace_area *a, uint32_t pid, char *buf, size_t size)
{
	struct find f = {.pid = pid};
	struct ttrace_aux_record rec;

	buf[0] = '\0';
	CHECK_EQ_INT(ttrace_aux_walk(a, match, &f), 0, "walk");
	CHECK(f.seen <= 1, "pid %u: %u records in the ring, a move left a copy", pid, f.seen);
	if (f.seen && ttrace_aux_lookup(a, f.pos, &rec, buf, size) < 0) {
		buf[0] = '\0';
	}
	return buf;
}

static uint64_t evicted(const struct ttrace_area *a)
{
	return a->hdr->aux_evicted;
}

TEST(name_holds_keep_a_live_program_name_through_any_aux_traffic)
{
	struct ttrace_area a;
	char buf[64];

	holds_area(&a, 2);
	spawn(&a, 7, "memtest");
	spawn(&a, 8, "ipcping");
	traffic(&a, 1000); /* 72 KB through a 4 KiB ring */
	CHECK_EQ_STR(name_of(&a, 7, buf, sizeof(buf)), "memtest", "live pid 7");
	CHECK_EQ_STR(name_of(&a, 8, buf, sizeof(buf)), "ipcping", "live pid 8");
	/* All but the fillers still in the ring were evicted; the names never were. */
	uint64_t in_ring = (a.hdr->aux_last - a.hdr->aux_first - 2 * TTRACE_AUX_RECORD_SIZE(7)) /
			   TTRACE_AUX_RECORD_SIZE(TEXT_LEN);
	CHECK_EQ_UINT(evicted(&a), 1000 - in_ring, "fillers evicted");
	test_area_put(&a);
}

TEST(name_holds_release_a_name_once_its_events_left_every_ring)
{
	struct ttrace_area a;
	char buf[64];

	holds_area(&a, 2);
	a.hdr->cpu[0].head = 5; /* the process wrote events 0..4 on CPU 0 */
	a.hdr->cpu[1].head = 3; /* and 0..2 on CPU 1 */
	spawn(&a, 7, "memtest");
	name_holds_freed(&holds, 7);
	traffic(&a, 200);
	CHECK_EQ_STR(name_of(&a, 7, buf, sizeof(buf)), "memtest", "events still stored");

	/* CPU 0's ring wrapped past them; CPU 1 still holds entry 2. */
	a.hdr->cpu[0].head = 5 + RING_ENTRIES;
	a.hdr->cpu[1].head = 2 + RING_ENTRIES;
	traffic(&a, 200);
	CHECK_EQ_STR(name_of(&a, 7, buf, sizeof(buf)), "memtest", "one ring still holds one");

	/* A clear discards CPU 1's: every event of pid 7 is gone. */
	a.hdr->cpu[1].clear_index = 2 + RING_ENTRIES;
	traffic(&a, 200);
	CHECK_EQ_STR(name_of(&a, 7, buf, sizeof(buf)), "", "events gone");
	test_area_put(&a);
}

TEST(name_holds_full_table_gives_way_to_the_process_freed_longest_ago)
{
	struct ttrace_area a;
	char buf[64];

	holds_area(&a, 1);
	a.hdr->cpu[0].head = 1; /* every process below has an event stored */
	spawn(&a, 1, "first");
	spawn(&a, 2, "second");
	name_holds_freed(&holds, 2);
	name_holds_freed(&holds, 1);
	for (uint32_t pid = 3; pid <= NAME_HOLDS_MAX; pid++) {
		name_holds_add(&holds, pid, 1); /* live processes, their records elsewhere */
	}
	spawn(&a, 600, "new");	  /* the table is full: pid 2's hold, freed first, goes */
	spawn(&a, 601, "unheld"); /* then pid 1's */
	spawn(&a, 602, "none");	  /* every hold is of a live process: not held */
	traffic(&a, 200);
	CHECK_EQ_STR(name_of(&a, 2, buf, sizeof(buf)), "", "freed first: evicted");
	CHECK_EQ_STR(name_of(&a, 1, buf, sizeof(buf)), "", "freed next: evicted");
	CHECK_EQ_STR(name_of(&a, 600, buf, sizeof(buf)), "new", "live: kept");
	CHECK_EQ_STR(name_of(&a, 601, buf, sizeof(buf)), "unheld", "live: kept");
	CHECK_EQ_STR(name_of(&a, 602, buf, sizeof(buf)), "", "no room in the table");
	test_area_put(&a);
}

static uint32_t kept_calls;

static bool keep_all(void *ctx, uint64_t pos, uint16_t tag)
{
	(void)ctx;
	(void)pos;
	(void)tag;
	kept_calls++;
	return true;
}

static void moved_nowhere(void *ctx, uint64_t from, uint64_t to)
{
	(void)ctx;
	(void)from;
	(void)to;
}

TEST(aux_keeper_moves_at_most_one_ring_per_record)
{
	const struct ttrace_aux_keeper k = {.keep = keep_all, .moved = moved_nowhere};
	struct ttrace_area a;
	char s[TEXT_LEN];
	uint64_t ref, written = 0;

	holds_area(&a, 1);
	memset(s, 'k', sizeof(s));
	for (uint32_t i = 0; i < 500; i++) {
		struct ttrace_aux_item it = {
		    .id = i, .str = s, .len = TEXT_LEN, .tag = TTRACE_AUX_TEXT};

		kept_calls = 0;
		CHECK_EQ_INT(ttrace_aux_write_keeping(&a, &it, &k, &ref), 0, "write");
		CHECK(kept_calls <= TTRACE_AUX_RING_MIN / TTRACE_AUX_RECORD_SIZE(TEXT_LEN),
		      "record %u: %u moves, more than a ring", i, kept_calls);
		CHECK_EQ_UINT(ref + TTRACE_AUX_RECORD_SIZE(TEXT_LEN), a.hdr->aux_last,
			      "newest last");
		written++;
	}
	uint64_t in_ring = (a.hdr->aux_last - a.hdr->aux_first) / TTRACE_AUX_RECORD_SIZE(TEXT_LEN);
	CHECK_EQ_UINT(evicted(&a), written - in_ring, "every record not kept is counted");
	test_area_put(&a);
}
