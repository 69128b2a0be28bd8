/*
 * Tests common/trace_aux.c, the aux string buffer: the boot names in the
 * durable part, which no amount of ring traffic overwrites; the ring's
 * eviction of its oldest records, checked against a model (a queue of
 * the records that must still be there) after every write; window
 * snapshots and lookups, which must return each surviving record byte for
 * byte and report every evicted or made-up reference as such, never
 * with other bytes. Regions are malloc'ed to their exact size.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/syscall.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_aux.h"
#include "common/trace_header.h"
#include "common/trace_names.h"
#include "test.h"
#include "trace/aux_write.h"

#define RING	    TTRACE_AUX_RING_MIN
#define MAX_RECORDS 2048

/* An area of one CPU whose aux has durable bytes of durable part, then the smallest ring. */
static void aux_area(struct ttrace_area *a, uint64_t durable)
{
	const struct ttrace_geometry g = {.num_cpus = 1,
					  .ring_entries = TTRACE_RING_ENTRIES_MIN,
					  .aux_durable_size = durable,
					  .aux_ring_size = RING};

	test_area_get(a, &g, false);
}

/* Record k's string: len bytes that differ from record to record. */
static void make_string(uint32_t k, uint32_t len, char *s)
{
	for (uint32_t i = 0; i < len; i++) {
		s[i] = (char)('a' + (k + i) % 26);
	}
	s[len] = '\0';
}

static int write_record(const struct ttrace_area *a, uint32_t k, uint32_t len, uint64_t *ref)
{
	char s[TTRACE_AUX_LEN_MAX + 2]; /* one too long, for the row that must be refused */
	struct ttrace_aux_item it = {.id = 1000 + k,
				     .ts = 10 * k,
				     .str = s,
				     .len = len,
				     .tag = TTRACE_AUX_TEXT,
				     .cpu = (uint8_t)(k % 8)};

	make_string(k, len, s);
	return ttrace_aux_write(a, &it, ref);
}

/* Checks that the record at ref, found or walked to, is record k of len bytes. */
static void check_found(const struct ttrace_aux_record *rec, const char *str, uint64_t ref,
			uint32_t k, uint32_t len, const char *what)
{
	char want[TTRACE_AUX_LEN_MAX + 1];

	make_string(k, len, want);
	CHECK_EQ_UINT(rec->pos, ref, what);
	CHECK_EQ_UINT(rec->ts, 10 * k, what);
	CHECK_EQ_UINT(rec->id, 1000 + k, what);
	CHECK_EQ_UINT(rec->tag, TTRACE_AUX_TEXT, what);
	CHECK_EQ_UINT(rec->len, len, what);
	CHECK_EQ_UINT(rec->cpu, k % 8, what);
	CHECK_EQ_UINT(rec->flags, TTRACE_AUX_VALID, what);
	CHECK_EQ_UINT(rec->reserved, 0, what);
	CHECK(rec->len == len && !memcmp(str, want, len), "%s: string differs", what);
}

/* The model: the records the ring must still hold, oldest first. */
struct model {
	uint64_t ref[MAX_RECORDS];
	uint32_t len[MAX_RECORDS];
	uint32_t k[MAX_RECORDS];
	size_t first, n; /* live records are [first, n) */
	uint64_t last, evicted;
};

static void model_write(struct model *m, uint64_t durable, uint32_t k, uint32_t len)
{
	uint64_t size = TTRACE_AUX_RECORD_SIZE(len);
	uint64_t used = 0;

	if (!m->n) {
		m->last = durable;
	}
	for (size_t i = m->first; i < m->n; i++) {
		used += TTRACE_AUX_RECORD_SIZE(m->len[i]);
	}
	while (used + size > RING) {
		used -= TTRACE_AUX_RECORD_SIZE(m->len[m->first++]);
		m->evicted++;
	}
	m->ref[m->n] = m->last;
	m->len[m->n] = len;
	m->k[m->n++] = k;
	m->last += size;
}

/* The header, a snapshot and every lookup must agree with the model. */
static void check_model(const struct ttrace_area *a, const struct model *m, const char *what)
{
	static uint64_t buf[RING / 8];
	const struct ttrace_header *h = a->hdr;
	struct ttrace_aux_record rec;
	struct ttrace_aux_view v;
	const char *str;
	char s[TTRACE_AUX_LEN_MAX + 1];
	size_t i = m->first;

	CHECK_EQ_UINT(h->aux_first, m->first < m->n ? m->ref[m->first] : m->last, what);
	CHECK_EQ_UINT(h->aux_last, m->last, what);
	CHECK_EQ_UINT(h->aux_evicted, m->evicted, what);
	CHECK_EQ_INT(ttrace_aux_snapshot(a, buf, sizeof(buf), &v), 0, what);
	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		CHECK(i < m->n, "%s: record past the model's last", what);
		if (i < m->n) {
			check_found(&rec, str, m->ref[i], m->k[i], m->len[i], what);
		}
		i++;
	}
	CHECK_EQ_UINT(i, m->n, what);
	CHECK_EQ_INT(ttrace_aux_next(&v, &rec, &str), 0, what);
	for (i = 0; i < m->n; i++) {
		int got = ttrace_aux_lookup(a, m->ref[i], &rec, s, sizeof(s));

		if (i < m->first) {
			CHECK_EQ_INT(got, -ENOENT, what);
			CHECK_EQ_STR(s, "", what);
		} else {
			CHECK_EQ_INT(got, (int)m->len[i], what);
			check_found(&rec, s, m->ref[i], m->k[i], m->len[i], what);
		}
	}
}

struct aux_row {
	const char *name;
	struct {
		uint32_t len, times;
	} writes[8]; /* strings of len bytes, times of them, in turn */
	/* after the last write: */
	uint64_t used, evicted;
	size_t records;
};

static const struct aux_row aux_rows[] = {
    {"fits", {{10, 1}, {20, 1}, {30, 1}}, 48 + 56 + 64, 0, 3},
    {"fills the ring exactly", {{32, 64}}, RING, 0, 64},
    {"one more evicts the oldest", {{32, 65}}, RING, 1, 64},
    /* 1056 bytes need 17 records of 64 gone: 47 * 64 + 1056 = 4064 */
    {"a long string evicts several", {{32, 64}, {1024, 1}}, 4064, 17, 48},
    /* the fourth record starts at 3168 and ends at 4200, past the ring end */
    {"records wrap the ring end", {{1024, 3}, {1000, 1}}, 1056 * 2 + 1032, 1, 3},
    {"empty strings", {{0, 200}}, RING, 200 - RING / 32, RING / 32},
    {"every length",
     {{0, 1}, {1, 1}, {7, 1}, {8, 1}, {9, 1}, {15, 1}, {16, 1}, {17, 1}},
     32 + 40 * 3 + 48 * 3 + 56,
     0,
     8},
};

TEST(trace_aux_ring_evicts_the_oldest_and_matches_the_model)
{
	for (size_t r = 0; r < sizeof(aux_rows) / sizeof(aux_rows[0]); r++) {
		const struct aux_row *row = &aux_rows[r];
		static struct model m;
		struct ttrace_area a;
		uint32_t k = 0;
		uint64_t ref;
		char what[96];

		memset(&m, 0, sizeof(m));
		aux_area(&a, 64);
		for (size_t w = 0; w < 8 && row->writes[w].times; w++) {
			for (uint32_t t = 0; t < row->writes[w].times; t++, k++) {
				snprintf(what, sizeof(what), "%s, record %u", row->name, k);
				CHECK_EQ_INT(write_record(&a, k, row->writes[w].len, &ref), 0,
					     what);
				model_write(&m, 64, k, row->writes[w].len);
				CHECK_EQ_UINT(ref, m.ref[m.n - 1], what);
				check_model(&a, &m, what);
			}
		}
		CHECK_EQ_UINT(a.hdr->aux_last - a.hdr->aux_first, row->used, row->name);
		CHECK_EQ_UINT(a.hdr->aux_evicted, row->evicted, row->name);
		CHECK_EQ_UINT(m.n - m.first, row->records, row->name);
		test_area_put(&a);
	}
}

TEST(trace_aux_random_writes_match_the_model)
{
	for (unsigned seed = 1; seed <= 5; seed++) {
		static struct model m;
		struct ttrace_area a;
		uint64_t ref;
		char what[32];

		srand(seed);
		memset(&m, 0, sizeof(m));
		aux_area(&a, 8);
		for (uint32_t k = 0; k < 300; k++) {
			uint32_t len = rand() % 4 ? (uint32_t)rand() % 64
						  : (uint32_t)rand() % (TTRACE_AUX_LEN_MAX + 1);

			snprintf(what, sizeof(what), "seed %u record %u", seed, k);
			CHECK_EQ_INT(write_record(&a, k, len, &ref), 0, what);
			model_write(&m, 8, k, len);
			check_model(&a, &m, what);
		}
		test_area_put(&a);
	}
}

TEST(trace_aux_boot_names_are_durable)
{
	uint64_t size = ttrace_aux_names_size();
	static uint64_t buf[RING / 8];
	struct ttrace_aux_record rec;
	struct ttrace_aux_view v;
	struct ttrace_area a;
	const char *str;
	char s[TTRACE_AUX_LEN_MAX + 1];
	uint64_t ref, open_ref = UINT64_MAX, switch_ref = UINT64_MAX;
	uint32_t syscalls = 0, kinds = 0;
	int got;

	aux_area(&a, size);
	CHECK_EQ_INT(ttrace_aux_write_names(&a, 77), 0, "names fit exactly");
	CHECK_EQ_UINT(a.hdr->aux_durable_end, size, "all of the durable part");
	ttrace_aux_durable(&a, &v);
	while ((got = ttrace_aux_next(&v, &rec, &str)) == 1) {
		CHECK_EQ_UINT(rec.ts, 77, "stamped");
		if (rec.tag == TTRACE_AUX_SYSCALL) {
			syscalls++;
			if (rec.id == SYS_spawn) {
				open_ref = rec.pos;
				CHECK(rec.len == 5 && !memcmp(str, "spawn", 5), "spawn's name");
			}
		} else if (rec.tag == TTRACE_AUX_KIND) {
			const struct ttrace_kind_info *k = ttrace_kind_info((uint32_t)rec.id);

			kinds++;
			CHECK(k != NULL, "kind %llu is in the table", (unsigned long long)rec.id);
			if (rec.id == TTRACE_KIND_sched_switch) {
				switch_ref = rec.pos;
			}
		}
	}
	CHECK_EQ_INT(got, 0, "the durable part walks to its end");
	/* the list's entries: numbers it skips have none */
	enum {
#define SYSCALL(nr, name, nargs) +1
		LISTED = 0
#include "abi/syscalls.def"
	};
#undef SYSCALL
	CHECK_EQ_UINT(syscalls, LISTED, "one record a syscall");
	CHECK_EQ_UINT(kinds, TTRACE_KIND_LIMIT - 1, "one record a kind");
	CHECK_EQ_INT(write_record(&a, 1, 0, &ref), 0, "the ring is separate");
	CHECK(ttrace_aux_write_durable(&a, &(struct ttrace_aux_item){.tag = TTRACE_AUX_TEXT},
				       &ref) == -ENOSPC,
	      "the durable part is full");

	/* laps of the ring leave the durable part alone */
	for (uint32_t k = 0; k < 100; k++) {
		CHECK_EQ_INT(write_record(&a, k, 200, &ref), 0, "ring traffic");
	}
	CHECK(a.hdr->aux_evicted > 0, "the ring evicted records");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, open_ref, &rec, s, sizeof(s)), 5, "spawn");
	CHECK_EQ_STR(s, "spawn", "spawn's name, still there");
	CHECK_EQ_UINT(rec.tag, TTRACE_AUX_SYSCALL, "tag");
	CHECK_EQ_UINT(rec.id, SYS_spawn, "id");
	CHECK(ttrace_aux_lookup(&a, switch_ref, &rec, s, sizeof(s)) > 0, "sched_switch");
	CHECK_EQ_STR(s, "sched_switch sched prev_tid:u prev_state:u=thread_state next_tid:u",
		     "a kind line");
	CHECK_EQ_INT(ttrace_aux_snapshot(&a, buf, sizeof(buf), &v), 0, "snapshot");
	CHECK_EQ_INT(ttrace_aux_next(&v, &rec, &str), 1, "the ring has records");
	CHECK(rec.pos >= size, "ring records are past the durable part");
	test_area_put(&a);

	aux_area(&a, size - 8);
	CHECK_EQ_INT(ttrace_aux_write_names(&a, 0), -ENOSPC, "a durable part too small");
	test_area_put(&a);
}

TEST(trace_aux_lookup_refuses_what_is_not_a_record)
{
	struct ttrace_aux_record rec;
	struct ttrace_area a;
	char s[8];
	uint64_t ref, dref, last;

	aux_area(&a, 64);
	CHECK_EQ_INT(
	    ttrace_aux_write_durable(
		&a, &(struct ttrace_aux_item){.tag = TTRACE_AUX_TEXT, .str = "x", .len = 1}, &dref),
	    0, "durable");
	CHECK_EQ_INT(write_record(&a, 1, 20, &ref), 0, "first");
	CHECK_EQ_INT(write_record(&a, 2, 20, &last), 0, "second");

	static const struct {
		const char *name;
		int64_t delta; /* from the second record's reference */
		int want;
	} rows[] = {
	    {"the record", 0, 20},
	    {"inside the record", 8, -EINVAL},
	    {"its string", 32, -EINVAL},
	    {"not aligned", 4, -EINVAL},
	    {"where the next record will go", 56, -EINVAL},
	    {"far past the last", 1 << 20, -EINVAL},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got = ttrace_aux_lookup(&a, last + rows[i].delta, &rec, s, sizeof(s));

		CHECK_EQ_INT(got, rows[i].want, rows[i].name);
		if (got < 0) {
			CHECK_EQ_STR(s, "", rows[i].name);
		}
	}
	CHECK_EQ_STR(s, "", "the last row failed");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, last, &rec, s, sizeof(s)), 20, "cut to the buffer");
	CHECK_EQ_STR(s, "cdefghi", "seven bytes and a NUL");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, dref, &rec, s, sizeof(s)), 1, "durable");
	CHECK_EQ_STR(s, "x", "durable string");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, dref + 8, &rec, s, sizeof(s)), -EINVAL,
		     "inside a durable record");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, dref + 40, &rec, s, sizeof(s)), -EINVAL,
		     "past the durable records");
	CHECK_EQ_INT(ttrace_aux_lookup(&a, ref, &rec, s, sizeof(s)), 20, "the first is there");
	test_area_put(&a);
}

TEST(trace_aux_refuses_bad_records)
{
	static uint64_t small[RING / 8 - 1];
	struct ttrace_aux_view v;
	struct ttrace_area a;
	uint64_t ref = 123;

	aux_area(&a, 64);
	CHECK_EQ_INT(ttrace_aux_write(&a, &(struct ttrace_aux_item){.str = "x", .len = 1}, &ref),
		     -EINVAL, "no tag");
	CHECK_EQ_INT(write_record(&a, 0, TTRACE_AUX_LEN_MAX + 1, &ref), -EINVAL, "too long");
	CHECK_EQ_INT(
	    ttrace_aux_write_durable(&a, &(struct ttrace_aux_item){.len = 1, .str = "x"}, &ref),
	    -EINVAL, "no tag, durable");
	CHECK_EQ_UINT(ref, 123, "no reference given");
	CHECK_EQ_UINT(a.hdr->aux_last, a.hdr->aux_durable_size, "nothing written");
	CHECK_EQ_UINT(a.hdr->aux_durable_end, 0, "nothing durable written");
	CHECK_EQ_INT(write_record(&a, 0, TTRACE_AUX_LEN_MAX, &ref), 0, "the longest string");
	CHECK_EQ_INT(ttrace_aux_snapshot(&a, small, sizeof(small), &v), -ENOSPC, "small buffer");
	test_area_put(&a);
}

TEST(trace_aux_walk_stops_at_bytes_that_are_not_a_record)
{
	static uint64_t buf[RING / 8];
	struct ttrace_aux_record rec;
	struct ttrace_aux_view v;
	struct ttrace_area a;
	const char *str;
	uint64_t refs[3];

	aux_area(&a, 64);
	for (uint32_t k = 0; k < 3; k++) {
		CHECK_EQ_INT(write_record(&a, k, 10, &refs[k]), 0, "write");
	}
	/* the second record's pos no longer names it (no wrap yet: position = offset) */
	a.aux[refs[1] / 8] += 8;
	CHECK_EQ_INT(ttrace_aux_snapshot(&a, buf, sizeof(buf), &v), 0, "snapshot");
	CHECK_EQ_INT(ttrace_aux_next(&v, &rec, &str), 1, "the first");
	CHECK_EQ_INT(ttrace_aux_next(&v, &rec, &str), -EINVAL, "the second is refused");
	CHECK_EQ_INT(ttrace_aux_next(&v, &rec, &str), 0, "nothing after it");
	test_area_put(&a);
}
