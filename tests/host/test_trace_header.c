/*
 * Tests common/trace_header.c: the layout ttrace_header_init() gives a
 * geometry, the geometries it refuses, what ttrace_area_init() prepares,
 * and the reader's check of an area. Each check row changes one field of
 * a good header, or one mapping length, and names the message the reader
 * must exit with, word for word (NULL: accepted).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_header.h"
#include "test.h"
#include "trace/area_init.h"

/* The good geometry every row starts from. */
static const struct ttrace_geometry good = {
    .num_cpus = 2,
    .ring_entries = 64,
    .aux_durable_size = 1024,
    .aux_ring_size = 4096,
    .tsc_hz = 2000000000,
    .boot_tsc = 12345,
};

TEST(trace_header_lays_out_the_regions_in_order)
{
	struct ttrace_area a;
	const struct ttrace_header *h;

	test_area_get(&a, &good, true);
	h = a.hdr;
	CHECK_EQ_UINT(h->magic, TTRACE_MAGIC, "magic");
	CHECK_EQ_UINT(h->version_major, TTRACE_VERSION_MAJOR, "major");
	CHECK_EQ_UINT(h->version_minor, TTRACE_VERSION_MINOR, "minor");
	CHECK_EQ_UINT(h->header_size, sizeof(struct ttrace_header), "header_size");
	CHECK_EQ_UINT(h->entry_size, 64, "entry_size");
	CHECK_EQ_UINT(h->cont_max, 3, "cont_max");
	CHECK_EQ_UINT(h->tsc_hz, good.tsc_hz, "tsc_hz");
	CHECK_EQ_UINT(h->boot_tsc, good.boot_tsc, "boot_tsc");
	CHECK_EQ_UINT(h->header_bytes, 0x1000, "header_bytes");
	CHECK_EQ_UINT(h->reader_offset, 0x1000, "reader_offset");
	CHECK_EQ_UINT(h->reader_bytes, 0x1000, "reader_bytes");
	CHECK_EQ_UINT(h->ring_offset, 0x2000, "ring_offset");
	CHECK_EQ_UINT(h->ring_bytes, 0x1000, "ring_bytes");
	CHECK_EQ_UINT(h->aux_offset, 0x4000, "aux_offset");
	CHECK_EQ_UINT(h->aux_mask, 0xfff, "aux_mask");
	CHECK_EQ_UINT(h->area_size, 0x6000, "area_size: 0x4000 + 1024 + 4096, page rounded");
	CHECK_EQ_UINT(h->mode, TTRACE_MODE_OVERWRITE, "mode");
	CHECK_EQ_UINT(h->mask, 0, "mask");
	test_area_put(&a);
}

TEST(trace_header_refuses_bad_geometries)
{
	static const struct {
		const char *name;
		uint32_t num_cpus, ring_entries;
		uint64_t durable, aux_ring;
		int want;
	} rows[] = {
	    {"good", 2, 64, 1024, 4096, 0},
	    {"one CPU, smallest rings, no durable part", 1, 16, 0, 4096, 0},
	    {"the most CPUs", 8, 1024, 8, 1 << 20, 0},
	    {"no CPU", 0, 64, 1024, 4096, -EINVAL},
	    {"too many CPUs", 9, 64, 1024, 4096, -EINVAL},
	    {"ring not a power of two", 2, 48, 1024, 4096, -EINVAL},
	    {"ring too small", 2, 8, 1024, 4096, -EINVAL},
	    {"durable part not word sized", 2, 64, 1020, 4096, -EINVAL},
	    {"aux ring not a power of two", 2, 64, 1024, 6144, -EINVAL},
	    {"aux ring too small", 2, 64, 1024, 2048, -EINVAL},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ttrace_geometry g = {.num_cpus = rows[i].num_cpus,
					    .ring_entries = rows[i].ring_entries,
					    .aux_durable_size = rows[i].durable,
					    .aux_ring_size = rows[i].aux_ring};
		struct ttrace_header h = {.magic = 1};

		CHECK_EQ_INT(ttrace_header_init(&h, &g), rows[i].want, rows[i].name);
		if (rows[i].want) {
			CHECK_EQ_UINT(h.magic, 1, rows[i].name); /* untouched */
		}
	}
}

TEST(trace_area_init_marks_every_slot_unwritten)
{
	struct ttrace_area a;
	const struct ttrace_header *h;

	test_area_get(&a, &good, true);
	h = a.hdr;
	memset(a.rings, 0, a.rings_len);
	memset(a.reader, 0xa5, a.reader_len);
	CHECK_EQ_INT(ttrace_area_init(&a), 0, "init");
	for (uint64_t i = 0; i < h->num_cpus * h->ring_entries; i++) {
		CHECK(a.rings[i].word[0] == TTRACE_TS_WRITING, "slot %llu is not marked",
		      (unsigned long long)i);
	}
	CHECK_EQ_UINT(a.reader->cpu[1].tail, 0, "tails");
	CHECK_EQ_UINT(h->aux_durable_end, 0, "aux_durable_end");
	CHECK_EQ_UINT(h->aux_first, h->aux_durable_size, "aux_first");
	CHECK_EQ_UINT(h->aux_last, h->aux_durable_size, "aux_last");
	a.rings_len -= 64;
	CHECK_EQ_INT(ttrace_area_init(&a), -EINVAL, "a ring mapped short");
	test_area_put(&a);
}

enum change {
	FIELD,	    /* store value into the header field at off, width bytes */
	HDR_LEN,    /* the lengths mapped of each region */
	READER_LEN, /* ... */
	RINGS_LEN,
	AUX_LEN,
	NO_HEADER, /* nothing mapped */
	NO_READER, /* the reader page not mapped */
};

struct check_row {
	const char *name;
	enum change change;
	size_t off, width;
	uint64_t value;
	const char *why;
};

#define SET(field, v)                                                                              \
	FIELD, offsetof(struct ttrace_header, field), sizeof(((struct ttrace_header *)0)->field),  \
	    (v)
#define MAP(change, len) (change), 0, 0, (len)

#define REGIONS(reader, ring, aux, area)                                                           \
	"trace header: regions at 0, " reader ", " ring " and " aux " are not page aligned, "      \
	"overlap or leave the " area "-byte area"
#define MAPPED(reader, rings, aux)                                                                 \
	"trace header: " reader ", " rings " and " aux " bytes of reader page, rings and aux "     \
	"mapped; they are 4096, 8192 and 5120"

/* The header's own minor version as text: the major-version rows keep it. */
#define TEXT_OF(n) #n
#define TEXT(n)	   TEXT_OF(n)
#define MINOR_TEXT TEXT(TTRACE_VERSION_MINOR)

static const struct check_row check_rows[] = {
    {"a good area", SET(magic, TTRACE_MAGIC), NULL},
    {"wrong magic", SET(magic, 0x12345678),
     "trace header: magic 0x12345678, expected 0x43525454: not a trace area"},
    {"another major version", SET(version_major, 2),
     "trace header: version 2." MINOR_TEXT ", this reader reads 1.x"},
    {"an older major version", SET(version_major, 0),
     "trace header: version 0." MINOR_TEXT ", this reader reads 1.x"},
    {"a newer minor version", SET(version_minor, 7), NULL},
    {"another shared-data layout", SET(shared_layout, 2),
     "trace header: data layouts 2 (shared) and 1 (per-CPU), this reader reads 1 and 1"},
    {"another per-CPU layout", SET(cpu_layout, 3),
     "trace header: data layouts 1 (shared) and 3 (per-CPU), this reader reads 1 and 1"},
    {"nothing mapped", MAP(NO_HEADER, 0), "trace header: 0 bytes mapped, too few to identify"},
    {"too little mapped to identify", MAP(HDR_LEN, 8),
     "trace header: 8 bytes mapped, too few to identify"},
    {"the header mapped short", MAP(HDR_LEN, 512),
     "trace header: 2816 bytes, 512 of them mapped; this reader needs 2816"},
    {"a header shorter than this reader's", SET(header_size, 256),
     "trace header: 256 bytes, 4096 of them mapped; this reader needs 2816"},
    {"another entry size", SET(entry_size, 32),
     "trace header: 32-byte entries with 3 continuations, expected 64 and 3"},
    {"no CPU", SET(num_cpus, 0), "trace header: 0 CPUs, expected 1 to 8"},
    {"too many CPUs", SET(num_cpus, 9), "trace header: 9 CPUs, expected 1 to 8"},
    {"ring not a power of two", SET(ring_entries, 48),
     "trace header: rings of 48 entries in 4096 bytes, expected a power of two from 16, 64 "
     "bytes each"},
    {"ring bytes not matching its entries", SET(ring_bytes, 8192),
     "trace header: rings of 64 entries in 8192 bytes, expected a power of two from 16, 64 "
     "bytes each"},
    {"aux mask not matching its size", SET(aux_mask, 0x7ff),
     "trace header: aux ring of 4096 bytes (mask 0x7ff) after 1024 durable ones, expected a "
     "power of two from 4096 after a multiple of 8"},
    {"durable part not word sized", SET(aux_durable_size, 1020),
     "trace header: aux ring of 4096 bytes (mask 0xfff) after 1020 durable ones, expected a "
     "power of two from 4096 after a multiple of 8"},
    {"rings overlapping aux", SET(aux_offset, 0x2000),
     REGIONS("0x1000", "0x2000", "0x2000", "0x6000")},
    {"aux leaving the area", SET(area_size, 0x5000),
     REGIONS("0x1000", "0x2000", "0x4000", "0x5000")},
    {"reader page not page aligned", SET(reader_offset, 0x1800),
     REGIONS("0x1800", "0x2000", "0x4000", "0x6000")},
    {"reader page inside the header", SET(reader_offset, 0),
     REGIONS("0", "0x2000", "0x4000", "0x6000")},
    {"rings mapped short", MAP(RINGS_LEN, 4096), MAPPED("4096", "4096", "5120")},
    {"aux mapped short", MAP(AUX_LEN, 4096), MAPPED("4096", "8192", "4096")},
    {"reader page mapped short", MAP(READER_LEN, 100), MAPPED("100", "8192", "5120")},
    {"reader page not mapped", MAP(NO_READER, 0), NULL},
};

static void apply(struct ttrace_area *a, const struct check_row *row)
{
	uint8_t *field = (uint8_t *)a->hdr + row->off;

	switch (row->change) {
	case FIELD:
		/* little-endian: the value's low bytes are the field */
		memcpy(field, &row->value, row->width);
		break;
	case HDR_LEN:
		a->hdr_len = row->value;
		break;
	case READER_LEN:
		a->reader_len = row->value;
		break;
	case RINGS_LEN:
		a->rings_len = row->value;
		break;
	case AUX_LEN:
		a->aux_len = row->value;
		break;
	case NO_HEADER:
		free(a->hdr);
		a->hdr = NULL;
		a->hdr_len = 0;
		break;
	case NO_READER:
		free(a->reader);
		a->reader = NULL;
		a->reader_len = 0;
		break;
	}
}

TEST(trace_area_check_says_why_a_reader_refuses)
{
	for (size_t i = 0; i < sizeof(check_rows) / sizeof(check_rows[0]); i++) {
		const struct check_row *row = &check_rows[i];
		struct ttrace_area a;
		char why[256] = "untouched";

		test_area_get(&a, &good, true);
		apply(&a, row);
		CHECK_EQ_INT(ttrace_area_check(&a, why, sizeof(why)), row->why ? -EINVAL : 0,
			     row->name);
		CHECK_EQ_STR(why, row->why ? row->why : "", row->name);
		test_area_put(&a);
	}
}

TEST(trace_area_check_cuts_the_message_to_the_buffer)
{
	struct ttrace_area a;
	char why[16];

	test_area_get(&a, &good, true);
	a.hdr->magic = 0;
	CHECK_EQ_INT(ttrace_area_check(&a, why, sizeof(why)), -EINVAL, "bad magic");
	CHECK_EQ_STR(why, "trace header: m", "cut, NUL-terminated");
	CHECK_EQ_INT(ttrace_area_check(&a, NULL, 0), -EINVAL, "no buffer");
	test_area_put(&a);
}
