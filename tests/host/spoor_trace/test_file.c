/*
 * Tests tools/spoor-trace/file.c, the reader's checks. Each row edits the
 * sample file (gen.h) one way and gives the exact refusal, its byte
 * offset worked out from the file's own layout; rows that must be
 * accepted (a newer minor, an unknown section, events in many sections)
 * give "". An edit that should reach a check past the checksum fixes the
 * checksum after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/file.h"

#define SLOT	 TTRACE_ENTRY_SIZE
#define HEAD	 sizeof(struct ttrace_file_section)
#define HDR	 sizeof(struct ttrace_file_header)
#define WANT_MAX TFILE_WHY_MAX
#define BYTE(n)	 ((unsigned long long)(n))

/* A file being edited: the buffer may grow or shrink. */
struct file {
	uint8_t *buf;
	size_t len;
	char want[WANT_MAX];
};

/* The refusal of the len bytes at buf, or "" when accepted. */
static const char *why_of(const uint8_t *buf, size_t len)
{
	static char why[TFILE_WHY_MAX];
	struct tfile f;

	if (tfile_parse(buf, len, &f, why, sizeof(why))) {
		return why;
	}
	tfile_free(&f);
	return "";
}

/* The offset of the n-th (from 0) section head of type, walking from the header. */
static size_t section_at(const struct file *f, uint32_t type, int n)
{
	size_t off = HDR;

	while (off + HEAD <= f->len) {
		struct ttrace_file_section s;
		memcpy(&s, f->buf + off, sizeof(s));
		if (s.type == type && n-- == 0) {
			return off;
		}
		off += HEAD + s.size;
	}
	abort(); /* the sample has the section: a test asking for another is wrong */
}

static void set32(struct file *f, size_t at, uint32_t v)
{
	memcpy(f->buf + at, &v, sizeof(v));
}

static void set64(struct file *f, size_t at, uint64_t v)
{
	memcpy(f->buf + at, &v, sizeof(v));
}

static uint64_t get64(const struct file *f, size_t at)
{
	uint64_t v;

	memcpy(&v, f->buf + at, sizeof(v));
	return v;
}

/* The first slot of the EVENTS payload, and the slot of event/marker number i there. */
static size_t slot_of(const struct file *f, const struct gen *g, size_t i)
{
	return section_at(f, TTRACE_FILE_EVENTS, 0) + HEAD + g->starts[i] * SLOT;
}

/* The sample, for the rows that edit it and for the section orders. */
static struct gen sample;

#define HDR_AT(field) offsetof(struct ttrace_file_header, field)

static void empty_file(struct file *f, const struct gen *g)
{
	(void)g;
	f->len = 0;
	snprintf(f->want, WANT_MAX, "byte 0: the file ends inside its 192-byte header");
}

static void cut_in_header(struct file *f, const struct gen *g)
{
	(void)g;
	f->len = 100;
	snprintf(f->want, WANT_MAX, "byte 100: the file ends inside its 192-byte header");
}

static void bad_magic(struct file *f, const struct gen *g)
{
	(void)g;
	set32(f, 0, 0x46545054);
	snprintf(f->want, WANT_MAX,
		 "byte 0: magic 0x46545054 is not a saved trace's 0x46545053 (\"SPTF\")");
}

static void other_major(struct file *f, const struct gen *g)
{
	(void)g;
	f->buf[HDR_AT(version_major)] = 2;
	snprintf(f->want, WANT_MAX, "byte 4: format version 2.%u: this reader reads version 1.x",
		 (unsigned)TTRACE_FILE_VERSION_MINOR);
}

static void odd_header_size(struct file *f, const struct gen *g)
{
	(void)g;
	set32(f, HDR_AT(header_size), 193);
	snprintf(f->want, WANT_MAX, "byte 8: header_size 193 is not a multiple of 8 from 192 on");
}

static void header_past_end(struct file *f, const struct gen *g)
{
	(void)g;
	set32(f, HDR_AT(header_size), (uint32_t)f->len + 8);
	snprintf(f->want, WANT_MAX, "byte %zu: the file ends inside its %zu-byte header", f->len,
		 f->len + 8);
}

static void nine_cpus(struct file *f, const struct gen *g)
{
	(void)g;
	set32(f, HDR_AT(num_cpus), 9);
	snprintf(f->want, WANT_MAX, "byte 12: num_cpus 9 is not 1 to 8");
}

static void aux_ring_not_pow2(struct file *f, const struct gen *g)
{
	(void)g;
	set64(f, HDR_AT(aux_ring_size), 5000);
	snprintf(f->want, WANT_MAX,
		 "byte 40: aux_ring_size 5000 is not a power of two from 4096 to 67108864");
}

static void durable_too_big(struct file *f, const struct gen *g)
{
	(void)g;
	set64(f, HDR_AT(aux_durable_size), 1ull << 40);
	snprintf(f->want, WANT_MAX,
		 "byte 32: aux_durable_size 1099511627776 is not a multiple of 8 up to 67108864");
}

static void other_trace_major(struct file *f, const struct gen *g)
{
	(void)g;
	f->buf[HDR_AT(trace_version_major)] = 2;
	snprintf(f->want, WANT_MAX,
		 "byte 64: events of trace version 2.%u: this reader decodes version 1.x",
		 (unsigned)TTRACE_VERSION_MINOR);
}

static void entry_size_32(struct file *f, const struct gen *g)
{
	(void)g;
	set32(f, HDR_AT(entry_size), 32);
	snprintf(f->want, WANT_MAX, "byte 68: entry_size 32 is not 64");
}

/* The abi's own example: an EVENTS section of 70 bytes. */
static void events_not_slots(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_EVENTS, 0);

	set64(f, at + 8, 70);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: an EVENTS section of 70 bytes is not whole 64-byte slots", at);
}

static void cut_in_events(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_EVENTS, 0);
	uint64_t size = get64(f, at + 8);

	f->len = at + HEAD + 100;
	snprintf(f->want, WANT_MAX,
		 "byte %zu: an EVENTS section of %llu bytes runs past the end of the file (100 "
		 "bytes left)",
		 at, BYTE(size));
}

static void cut_in_section_head(struct file *f, const struct gen *g)
{
	(void)g;
	f->len = HDR + 8;
	snprintf(f->want, WANT_MAX,
		 "byte 192: the file ends inside a section head (8 of 16 bytes)");
}

static void cut_after_events(struct file *f, const struct gen *g)
{
	(void)g;
	f->len = section_at(f, TTRACE_FILE_AUX_DURABLE, 0);
	snprintf(f->want, WANT_MAX, "byte %zu: the file ends before its AUX_DURABLE section",
		 f->len);
}

static void cut_before_end(struct file *f, const struct gen *g)
{
	(void)g;
	f->len = section_at(f, TTRACE_FILE_END, 0);
	snprintf(f->want, WANT_MAX, "byte %zu: the file ends before its END section", f->len);
}

static void ledger_size_odd(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_LEDGER, 0);

	set64(f, at + 8, 4 * sizeof(struct ttrace_file_ledger) + 4);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: a LEDGER section of 196 bytes is not a multiple of 8", at);
}

static void bytes_after_end(struct file *f, const struct gen *g)
{
	(void)g;
	memset(f->buf + f->len, 0, 8);
	f->len += 8;
	snprintf(f->want, WANT_MAX, "byte %zu: 8 bytes follow the END section", f->len - 8);
}

/* One byte of an event's data changed: only the checksum can tell. */
static void checksum_mismatch(struct file *f, const struct gen *g)
{
	size_t end = section_at(f, TTRACE_FILE_END, 0);
	uint64_t stored = get64(f, end + HEAD + offsetof(struct ttrace_file_end, checksum));

	f->buf[slot_of(f, g, 2) + offsetof(struct ttrace_entry, data) + 8] ^= 0x40;
	snprintf(f->want, WANT_MAX,
		 "byte %zu: checksum 0x%016llx, the bytes before the END section give 0x%016llx",
		 end + HEAD + offsetof(struct ttrace_file_end, checksum), BYTE(stored),
		 BYTE(ttrace_sum_words(TTRACE_FNV_OFFSET, f->buf, end)));
}

static void continuation_first(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, 0);

	f->buf[at] |= TTRACE_TS_CONT;
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX, "byte %zu: a continuation slot where an event should begin",
		 at);
}

/* Event 21 of the sample is user:demo, which takes a continuation. */
static void continuation_ts(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, 21);
	uint64_t ts = get64(f, at);

	set64(f, at + SLOT, ts + 3);
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: continuation 1 of the event at byte %zu has ts 0x%llx, not 0x%llx",
		 at + SLOT, at, BYTE(ts + 3), BYTE(ts | TTRACE_TS_CONT));
}

static void event_cpu(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, 3);

	f->buf[at + offsetof(struct ttrace_entry, cpu)] = 4;
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX, "byte %zu: an event on cpu 4; the file has 4 cpus",
		 at + offsetof(struct ttrace_entry, cpu));
}

/* The last event claims three continuations it does not have. */
static void event_past_section(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, g->nstarts - 1);

	f->buf[at + offsetof(struct ttrace_entry, ctx)] = TTRACE_CTX_MAKE(0, 3);
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: an event of 3 continuations runs past the end of its section", at);
}

static void marker_ts(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, 0); /* the lossy sample starts with a marker */

	set64(f, at, 4);
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX, "byte %zu: a loss marker with ts 0x4, not 0", at);
}

static void marker_cpu(struct file *f, const struct gen *g)
{
	size_t at = slot_of(f, g, 0);

	f->buf[at + offsetof(struct ttrace_entry, cpu)] = 7;
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX, "byte %zu: a loss marker for cpu 7; the file has 4 cpus",
		 at + offsetof(struct ttrace_entry, cpu));
}

static void durable_not_record(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_AUX_DURABLE, 0) + HEAD;

	set64(f, at, 8); /* the first record's pos */
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: the AUX_DURABLE bytes at aux position 0 are not a record", at);
}

static void durable_over_size(struct file *f, const struct gen *g)
{
	(void)g;
	set64(f, HDR_AT(aux_durable_size), 8);
	gen_fix_checksum(f->buf, f->len);
	size_t at = section_at(f, TTRACE_FILE_AUX_DURABLE, 0);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: an AUX_DURABLE section of %llu bytes is larger than aux_durable_size 8",
		 at, BYTE(get64(f, at + 8)));
}

static void ring_last_short(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_AUX_RING, 0);
	uint64_t last = get64(f, at + HEAD + 8);

	set64(f, at + HEAD + 8, last - 8);
	gen_fix_checksum(f->buf, f->len);
	snprintf(
	    f->want, WANT_MAX,
	    "byte %zu: an AUX_RING section of %llu bytes does not hold first..last, %llu bytes", at,
	    BYTE(get64(f, at + 8)), BYTE(last - 8 - get64(f, at + HEAD)));
}

static void ring_first_low(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_AUX_RING, 0) + HEAD;

	set64(f, at, 1024);
	gen_fix_checksum(f->buf, f->len);
	snprintf(
	    f->want, WANT_MAX,
	    "byte %zu: AUX_RING first 1024 is not a multiple of 8 from aux_durable_size 2048 on",
	    at);
}

/* The ring's second record says it is somewhere else. */
static void ring_not_record(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_AUX_RING, 0) + HEAD;
	uint64_t first = get64(f, at);
	struct ttrace_aux_record r;

	memcpy(&r, f->buf + at + 16, sizeof(r));
	size_t second = at + 16 + TTRACE_AUX_RECORD_SIZE(r.len);
	f->buf[second + offsetof(struct ttrace_aux_record, flags)] = 0;
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: the AUX_RING bytes at aux position %llu are not a record", second,
		 BYTE(first + TTRACE_AUX_RECORD_SIZE(r.len)));
}

static void ledger_lost(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_LEDGER, 0) + HEAD + sizeof(struct ttrace_file_ledger);
	size_t lost = at + offsetof(struct ttrace_file_ledger, lost);

	set64(f, lost, 6);
	gen_fix_checksum(f->buf, f->len);
	snprintf(f->want, WANT_MAX,
		 "byte %zu: cpu 1's ledger counts 6 entries lost, its loss markers 5", lost);
}

static void ledger_sum(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_LEDGER, 0) + HEAD;

	set64(f, at, get64(f, at) + 1);
	gen_fix_checksum(f->buf, f->len);
	snprintf(
	    f->want, WANT_MAX,
	    "byte %zu: cpu 0's ledger does not add up: emitted %llu is not stored + overwritten "
	    "+ dropped + cleared",
	    at, BYTE(get64(f, at)));
}

static void end_events(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_END, 0) + HEAD;

	set64(f, at, 32);
	snprintf(f->want, WANT_MAX, "byte %zu: END counts 32 events, the EVENTS sections hold 31",
		 at);
}

static void end_lost(struct file *f, const struct gen *g)
{
	(void)g;
	size_t at = section_at(f, TTRACE_FILE_END, 0) + HEAD + 8;

	set64(f, at, 11);
	snprintf(f->want, WANT_MAX, "byte %zu: END counts 11 entries lost, the loss markers 10",
		 at);
}

/* A newer minor: eight more header bytes, which this reader skips. */
static void newer_minor(struct file *f, const struct gen *g)
{
	(void)g;
	memmove(f->buf + HDR + 8, f->buf + HDR, f->len - HDR);
	memset(f->buf + HDR, 0xee, 8);
	f->len += 8;
	f->buf[HDR_AT(version_minor)] = TTRACE_FILE_VERSION_MINOR + 1;
	set32(f, HDR_AT(header_size), HDR + 8);
	gen_fix_checksum(f->buf, f->len);
	f->want[0] = '\0';
}

/* Sections in the wrong order, or missing, or twice: built by gen_file(). */
struct order_row {
	const char *name;
	uint32_t order[8];
	const char *want; /* %zu: the offset below */
	uint32_t nth;	  /* the offset: the head of section nth of order, or AT_* */
};

#define E_	     TTRACE_FILE_EVENTS
#define D_	     TTRACE_FILE_AUX_DURABLE
#define R_	     TTRACE_FILE_AUX_RING
#define L_	     TTRACE_FILE_LEDGER
#define N_	     TTRACE_FILE_END
#define C_	     TTRACE_FILE_CPU_EVENTS
#define AT_END	     99	 /* the end of the file */
#define AT_END_COUNT 100 /* the END section's events field */

static const struct order_row order_rows[] = {
    {"standard", {E_, D_, R_, L_, N_}, "", 0},
    {"unknown section skipped", {E_, 77, D_, R_, 9, L_, N_}, "", 0},
    {"per cpu", {C_, D_, R_, L_, N_}, "", 0},
    {"events and per cpu",
     {E_, C_, D_, R_, L_, N_},
     "byte %zu: EVENTS and CPU_EVENTS sections in one file",
     1},
    {"per cpu after durable",
     {D_, C_, R_, L_, N_},
     "byte %zu: a CPU_EVENTS section after the AUX_DURABLE section",
     1},
    {"no events",
     {D_, R_, L_, N_},
     "byte %zu: END counts 31 events, the EVENTS sections hold 0",
     AT_END_COUNT},
    {"events after durable",
     {D_, E_, R_, L_, N_},
     "byte %zu: an EVENTS section after the AUX_DURABLE section",
     1},
    {"ring before durable",
     {E_, R_, D_, L_, N_},
     "byte %zu: an AUX_RING section where the AUX_DURABLE section should be",
     1},
    {"two ledgers", {E_, D_, R_, L_, L_, N_}, "byte %zu: a second LEDGER section", 4},
    {"no end", {E_, D_, R_, L_}, "byte %zu: the file ends before its END section", AT_END},
    {"end first",
     {N_, E_, D_, R_, L_},
     "byte %zu: an END section where the AUX_DURABLE section should be",
     0},
};

TEST(spoor_trace_file_section_order)
{
	for (size_t i = 0; i < sizeof(order_rows) / sizeof(order_rows[0]); i++) {
		const struct order_row *r = &order_rows[i];
		char want[WANT_MAX];
		struct file f;

		f.buf = gen_file(&sample, r->order, &f.len);
		size_t at = HDR;
		for (uint32_t n = 0; r->nth < AT_END && n < r->nth; n++) {
			struct ttrace_file_section s;
			memcpy(&s, f.buf + at, sizeof(s));
			at += HEAD + s.size;
		}
		if (r->nth == AT_END) {
			at = f.len;
		} else if (r->nth == AT_END_COUNT) {
			at = f.len - sizeof(struct ttrace_file_end);
		}
		snprintf(want, sizeof(want), r->want, at);
		CHECK_EQ_STR(why_of(f.buf, f.len), want, r->name);
		free(f.buf);
	}
}

struct edit_row {
	const char *name;
	void (*edit)(struct file *f, const struct gen *g);
	bool lossy; /* edits the lossy sample */
};

static const struct edit_row edit_rows[] = {
    {"empty file", empty_file, false},
    {"cut in the header", cut_in_header, false},
    {"bad magic", bad_magic, false},
    {"other major version", other_major, false},
    {"odd header_size", odd_header_size, false},
    {"header past the end", header_past_end, false},
    {"nine cpus", nine_cpus, false},
    {"aux ring not a power of two", aux_ring_not_pow2, false},
    {"durable size over the limit", durable_too_big, false},
    {"other trace version", other_trace_major, false},
    {"entry size 32", entry_size_32, false},
    {"events not whole slots", events_not_slots, false},
    {"cut in the events", cut_in_events, false},
    {"cut in a section head", cut_in_section_head, false},
    {"cut after the events", cut_after_events, false},
    {"cut before the end", cut_before_end, false},
    {"ledger size not a multiple of 8", ledger_size_odd, true},
    {"bytes after the end", bytes_after_end, false},
    {"checksum mismatch", checksum_mismatch, false},
    {"continuation first", continuation_first, false},
    {"continuation ts", continuation_ts, false},
    {"event on a fifth cpu", event_cpu, false},
    {"event past its section", event_past_section, false},
    {"marker with a ts", marker_ts, true},
    {"marker on cpu 7", marker_cpu, true},
    {"durable bytes not a record", durable_not_record, false},
    {"durable over its size", durable_over_size, false},
    {"ring window short", ring_last_short, false},
    {"ring first below the durable part", ring_first_low, false},
    {"ring bytes not a record", ring_not_record, false},
    {"ledger lost", ledger_lost, true},
    {"ledger sum", ledger_sum, true},
    {"end events", end_events, false},
    {"end lost", end_lost, true},
    {"newer minor", newer_minor, false},
};

TEST(spoor_trace_file_refusals)
{
	struct gen lossy;

	gen_sample(&lossy, true);
	for (size_t i = 0; i < sizeof(edit_rows) / sizeof(edit_rows[0]); i++) {
		const struct edit_row *r = &edit_rows[i];
		size_t len;
		const struct gen *g = r->lossy ? &lossy : &sample;
		uint8_t *orig = gen_file(g, NULL, &len);
		struct file f = {.buf = malloc(len + 64), .len = len};

		memcpy(f.buf, orig, len);
		r->edit(&f, g);
		CHECK_EQ_STR(why_of(f.buf, f.len), f.want, r->name);
		free(f.buf);
		free(orig);
	}
	gen_free(&lossy);
}

/* What the parse counts, and every item in order, for the lossy sample split into sections. */
TEST(spoor_trace_file_walks_every_item)
{
	struct gen g;
	struct tfile f;
	struct tfile_iter it;
	struct tfile_item item;
	char why[TFILE_WHY_MAX];
	size_t len;

	gen_sample(&g, true);
	g.section_slots = 3;
	uint8_t *buf = gen_file(&g, NULL, &len);
	CHECK_EQ_INT(tfile_parse(buf, len, &f, why, sizeof(why)), 0, why);
	CHECK_EQ_UINT(f.nspans > 5, 1, "events in many sections");
	CHECK_EQ_UINT(f.events, 31, "events");
	CHECK_EQ_UINT(f.lost, 10, "lost");
	CHECK_EQ_UINT(f.cpu_lost[1], 5, "cpu 1 lost");
	CHECK_EQ_UINT(f.first_ts, gen_ts(100), "first ts");
	CHECK_EQ_UINT(f.last_ts, gen_ts(300), "last ts");
	size_t n = 0;
	tfile_iter_start(&it, &f);
	while (tfile_next(&it, &item)) {
		CHECK(n < g.nstarts, "more items than written");
		if (n < g.nstarts) {
			union ttrace_slot s;
			memcpy(&s, g.slots + g.starts[n] * SLOT, sizeof(s));
			CHECK_EQ_UINT(item.lost, s.e.kind == TRACED_KIND_LOST, "marker or event");
			if (item.lost) {
				CHECK_EQ_UINT(item.lost_cpu, s.e.cpu, "marker cpu");
				CHECK_EQ_UINT(item.lost_count, s.e.data[0], "marker count");
			} else {
				CHECK_EQ_UINT(item.rec.ts, s.e.ts, "event ts");
				CHECK_EQ_UINT(item.rec.kind, s.e.kind, "event kind");
				CHECK_EQ_UINT(item.rec.ncont, TTRACE_NCONT_OF(s.e.ctx),
					      "event ncont");
				CHECK_EQ_UINT(item.rec.ctx, TTRACE_CTX_OF(s.e.ctx), "event ctx");
				CHECK_EQ_UINT(item.rec.data[0], s.e.data[0], "event word 0");
			}
		}
		n++;
	}
	CHECK_EQ_UINT(n, g.nstarts, "items");
	tfile_free(&f);
	free(buf);
	gen_free(&g);
}

__attribute__((constructor)) static void sample_init(void)
{
	gen_sample(&sample, false);
}

__attribute__((destructor)) static void sample_fini(void)
{
	gen_free(&sample);
}
