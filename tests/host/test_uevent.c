/*
 * Tests common/uevent_parse.c and uevent_payload.c: descriptions good and bad, each row with the
 * code it must give (and, for the good ones, the layout), the rule for
 * registering an event twice, canonical text that parses back to the same
 * definition, the kernel's payload check and the key=value text of a
 * payload. Every description and payload is copied to a heap block of
 * exactly its length, so ASan catches a read past it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/uevent.h"
#include "common/uevent_parse.h"
#include "common/uevent_payload.h"
#include "test.h"

#define WHY_SIZE  160
#define TEXT_SIZE 1024

/* A description the parser must accept, and the layout it gives. */
struct good_row {
	const char *desc;
	uint32_t nfields;
	uint32_t fixed_size;
};

/* A description the parser must refuse: the code, and a part of the reason or NULL. */
struct bad_row {
	const char *desc;
	int rc;
	const char *why;
};

static const struct good_row good_rows[] = {
    {"ev", 0, 0},
    {"ev u32 a", 1, 4},
    {"ev u32 a;char[16] s", 2, 20},
    {"ev u8 a;s8 b;u16 c;s16 d;u32 e;s32 f;u64 g;s64 h", 8, 30},
    {"ev char a;unsigned char b;short c;unsigned short d;int e;unsigned int f", 6, 14},
    {"ev __data_loc char[] s;__rel_loc char[] r;__data_loc unsigned char[] b;"
     "__rel_loc unsigned char[] c",
     4, 16},
    {"ev struct point p 8", 1, 8},
    {"ev struct point p 0X1f;u8 x", 2, 32},
    {"ev u32 a;", 1, 4},
    {"ev u32 a;;u8 b", 2, 5},
    {"ev ;", 0, 0},
    {"ev ; ;\t;", 0, 0},
    {"  \tev \t u32\t a \t;\t  u8   b  ", 2, 5},
    {"ev unsigned \t char c;__data_loc   unsigned\tchar[] d", 2, 5},
    {"ev char[0x10] s", 1, 16},
    {"ev unsigned char[3] b", 1, 3},
    {"ev char[200] s", 1, 200},
    {"_ev9 u32 _a1;u8 B_2", 2, 5},
    {"ev u32 u8;u8 struct", 2, 5},
};

static const struct bad_row bad_rows[] = {
    /* Too big for one write: good grammar, but over UEVENT_PAYLOAD_MAX. */
    {"ev char[0x400] s", -E2BIG, "payload limit of 200"},
    {"ev char[1024] s", -E2BIG, "field 's' ends at byte 1024"},
    {"ev u8 x;char[200] s", -E2BIG, "field 's' ends at byte 201"},
    {"ev struct big b 1024", -E2BIG, "'b'"},
    /* Empty and missing words. */
    {"", -EINVAL, "empty description"},
    {" \t ", -EINVAL, "empty description"},
    {"ev u32", -EINVAL, "field 1 has no name after its type 'u32'"},
    {"ev u32 a;unsigned char", -EINVAL, "field 2 has no name"},
    {"ev unsigned", -EINVAL, "incomplete type 'unsigned'"},
    {"ev __data_loc", -EINVAL, "incomplete type '__data_loc'"},
    {"ev struct", -EINVAL, "struct in field 1 has no type name"},
    {"ev struct foo", -EINVAL, "has no field name"},
    {"ev struct foo x", -EINVAL, "struct field 'x' has no size"},
    /* Sizes. */
    {"ev u32 a 4", -EINVAL, "unexpected '4' after field 'a'"},
    {"ev u32 a b", -EINVAL, "unexpected 'b'"},
    {"ev struct foo x 0", -EINVAL, "size '0' of struct field 'x'"},
    {"ev struct foo x 1025", -EINVAL, "'1025'"},
    {"ev struct foo x 4 5", -EINVAL, "unexpected '5'"},
    {"ev struct foo x four", -EINVAL, "bad size 'four'"},
    {"ev char[0] s", -EINVAL, "empty array 'char[0]'"},
    {"ev char[0x0] s", -EINVAL, "empty array"},
    {"ev char[1025] s", -EINVAL, "array 'char[1025]' in field 1 is longer than 1024"},
    {"ev char[0x401] s", -EINVAL, "longer than 1024"},
    {"ev char[99999999999999999999] s", -EINVAL, "longer than 6 characters"},
    {"ev char[] s", -EINVAL, "has no size"},
    {"ev char[x] s", -EINVAL, "bad array size 'x'"},
    {"ev char[010] s", -EINVAL, "bad array size '010'"},
    {"ev char[0x] s", -EINVAL, "bad array size '0x'"},
    {"ev char[-1] s", -EINVAL, "bad array size"},
    {"ev char[16 s", -EINVAL, "no closing ']'"},
    {"ev char [16] s", -EINVAL, "field name '[16]'"},
    /* Types. */
    {"ev long a", -EINVAL, "unknown type 'long' in field 1 (long is ambiguous; use s64"},
    {"ev u8 x;unsigned long a", -EINVAL,
     "unknown type 'unsigned long' in field 2 (long is ambiguous; use u64 or u32)"},
    {"ev foo a", -EINVAL, "unknown type 'foo' in field 1"},
    {"ev signed char c", -EINVAL, "unknown type 'signed'"},
    {"ev unsigned u32 a", -EINVAL, "unknown type 'unsigned u32'"},
    {"ev U32 a", -EINVAL, "unknown type 'U32'"},
    {"ev u8[4] a", -EINVAL, "unknown type 'u8[4]'"},
    {"ev __data_loc u32 a", -EINVAL, "takes char[] or unsigned char[]"},
    {"ev __rel_loc char s", -EINVAL, "__rel_loc takes char[]"},
    {"ev __data_loc char[16] s", -EINVAL, "takes no size"},
    /* Names. */
    {"ev u32 a;u8 a", -EINVAL, "field name 'a' is used twice (fields 1 and 2)"},
    {"ev u32 a;;struct t a 2", -EINVAL, "used twice"},
    {"1ev u32 a", -EINVAL, "event name '1ev' is not a C identifier"},
    {"ev u32 1a", -EINVAL, "field name '1a' is not a C identifier"},
    {"ev u32 a-b", -EINVAL, "'a-b'"},
    {"ev struct 1x a 4", -EINVAL, "struct type '1x'"},
    {"ev;u32 a", -EINVAL, "event name 'ev;u32'"},
    {"e.v u32 a", -EINVAL, "not a C identifier"},
    /* Flags. */
    {"ev:BPF u32 a", -EINVAL, "flags 'BPF' of event 'ev' are not supported"},
    {"ev:", -EINVAL, "empty flags after 'ev:'"},
    {"ev: u32 a", -EINVAL, "empty flags"},
    {":BPF", -EINVAL, "missing event name"},
    /* Bytes. */
    {"\xc3\xa9v u32 a", -EINVAL, "byte 0xc3 at offset 0 is not printable ASCII"},
    {"ev u32 caf\xc3\xa9", -EINVAL, "offset 10"},
    {"ev u32 a\n", -EINVAL, "byte 0x0a"},
    {"ev\x7f", -EINVAL, "byte 0x7f"},
};

/* Parses the first len bytes of desc from a heap block of exactly len bytes. */
static int parse_exact(const char *desc, size_t len, struct uevent_def *d, char *why,
		       size_t why_size)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, desc, len);
	rc = uevent_parse(copy, len, d, why, why_size);
	free(copy);
	return rc;
}

static int parse(const char *desc, struct uevent_def *d, char *why)
{
	return parse_exact(desc, strlen(desc), d, why, WHY_SIZE);
}

/* Checks that the first len bytes of desc parse, into nfields fields of fixed_size bytes. */
static void check_good(const char *desc, size_t len, uint32_t nfields, uint32_t fixed_size)
{
	static struct uevent_def d;
	char why[WHY_SIZE] = "";
	int rc = parse_exact(desc, len, &d, why, sizeof(why));

	CHECK(rc == 0, "\"%.60s\": returns %d, expected 0 (%s)", desc, rc, why);
	if (rc == 0) {
		CHECK_EQ_UINT(d.nfields, nfields, desc);
		CHECK_EQ_UINT(d.fixed_size, fixed_size, desc);
	}
}

/*
 * Checks that the first len bytes of desc are refused with want, and one
 * line of reason that holds part (unless part is NULL).
 */
static void check_bad(const char *desc, size_t len, int want, const char *part)
{
	static struct uevent_def d;
	char why[WHY_SIZE] = "";
	int rc = parse_exact(desc, len, &d, why, sizeof(why));

	CHECK(rc == want, "\"%.60s\": returns %d, expected %d (%s)", desc, rc, want, why);
	if (rc < 0) {
		CHECK(why[0] && !strchr(why, '\n'), "\"%.60s\": one line of reason", desc);
	}
	if (rc < 0 && part) {
		CHECK(strstr(why, part), "\"%.60s\": reason \"%s\" names \"%s\"", desc, why, part);
	}
}

TEST(uevent_parse_table)
{
	for (size_t i = 0; i < sizeof(good_rows) / sizeof(good_rows[0]); i++) {
		const struct good_row *r = &good_rows[i];

		check_good(r->desc, strlen(r->desc), r->nfields, r->fixed_size);
	}
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		const struct bad_row *r = &bad_rows[i];

		check_bad(r->desc, strlen(r->desc), r->rc, r->why);
	}
}

/* Rows too long to write out: built here, then checked like the table's. */
TEST(uevent_parse_limits)
{
	static char desc[TEXT_SIZE];
	char name[UEVENT_NAME_MAX + 2];
	size_t len;

	/* The longest event name, then one character more. */
	memset(name, 'e', sizeof(name));
	name[UEVENT_NAME_MAX] = '\0';
	snprintf(desc, sizeof(desc), "%s u8 x", name);
	check_good(desc, strlen(desc), 1, 1);
	name[UEVENT_NAME_MAX] = 'e';
	name[UEVENT_NAME_MAX + 1] = '\0';
	snprintf(desc, sizeof(desc), "%s u8 x", name);
	check_bad(desc, strlen(desc), -ENAMETOOLONG, "longer than 63 characters");

	/* The longest field name and struct type, then one character more. */
	snprintf(desc, sizeof(desc), "ev u8 %.*s", UEVENT_FIELD_NAME_MAX, name);
	check_good(desc, strlen(desc), 1, 1);
	snprintf(desc, sizeof(desc), "ev u8 %.*s", UEVENT_FIELD_NAME_MAX + 1, name);
	check_bad(desc, strlen(desc), -ENAMETOOLONG, "field name");
	snprintf(desc, sizeof(desc), "ev struct %.*s x 4", UEVENT_FIELD_NAME_MAX + 1, name);
	check_bad(desc, strlen(desc), -ENAMETOOLONG, "struct type");

	/* UEVENT_FIELDS_MAX fields, then one more; empty fields do not count. */
	len = (size_t)snprintf(desc, sizeof(desc), "ev");
	for (int i = 0; i < UEVENT_FIELDS_MAX; i++) {
		len +=
		    (size_t)snprintf(desc + len, sizeof(desc) - len, "%su8 f%d;;", i ? "" : " ", i);
	}
	check_good(desc, len, UEVENT_FIELDS_MAX, UEVENT_FIELDS_MAX);
	snprintf(desc + len, sizeof(desc) - len, "u8 one_more");
	check_bad(desc, strlen(desc), -E2BIG, "field 33 is one too many");

	/* UEVENT_DESC_MAX bytes of description, then one byte more. */
	memset(desc, ' ', UEVENT_DESC_MAX + 1);
	memcpy(desc, "ev u32 a", strlen("ev u32 a"));
	check_good(desc, UEVENT_DESC_MAX, 1, 4);
	check_bad(desc, UEVENT_DESC_MAX + 1, -E2BIG, "longer than 512 bytes");

	/* The text ends at a NUL: a buffer's size may be passed as len. */
	memcpy(desc, "ev u32 a\0u8 junk", sizeof("ev u32 a\0u8 junk"));
	check_good(desc, sizeof("ev u32 a\0u8 junk"), 1, 4);
	check_good(desc, UEVENT_DESC_MAX + 1, 1, 4);
}

TEST(uevent_parse_layout)
{
	static struct uevent_def d;
	char why[WHY_SIZE] = "";
	static const struct {
		const char *name;
		uint16_t type;
		uint16_t offset;
		uint16_t size;
		const char *struct_type;
	} want[] = {
	    {"a", UEVENT_TYPE_U32, 0, 4, ""},
	    {"s", UEVENT_TYPE_CHAR_ARRAY, 4, 3, ""},
	    {"c", UEVENT_TYPE_UCHAR, 7, 1, ""},
	    {"d", UEVENT_TYPE_DATA_LOC_STRING, 8, 4, ""},
	    {"r", UEVENT_TYPE_REL_LOC_UBYTES, 12, 4, ""},
	    {"p", UEVENT_TYPE_STRUCT, 16, 6, "point"},
	    {"i", UEVENT_TYPE_S16, 22, 2, ""},
	    {"b", UEVENT_TYPE_UCHAR_ARRAY, 24, 2, ""},
	    {"e", UEVENT_TYPE_REL_LOC_STRING, 26, 4, ""},
	    {"f", UEVENT_TYPE_DATA_LOC_UBYTES, 30, 4, ""},
	};
	int rc = parse("my_ev u32 a; char[3] s ;unsigned char c;__data_loc char[] d;"
		       "__rel_loc unsigned char[] r;struct point p 6;s16 i;unsigned char[2] b;"
		       "__rel_loc char[] e;__data_loc unsigned char[] f",
		       &d, why);

	CHECK_EQ_INT(rc, 0, why);
	CHECK_EQ_STR(d.name, "my_ev", "name");
	CHECK_EQ_UINT(d.nfields, sizeof(want) / sizeof(want[0]), "nfields");
	CHECK_EQ_UINT(d.fixed_size, 34, "fixed_size");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct uevent_field *f = &d.field[i];

		CHECK_EQ_STR(f->name, want[i].name, "field name");
		CHECK_EQ_UINT(f->type, want[i].type, want[i].name);
		CHECK_EQ_UINT(f->offset, want[i].offset, want[i].name);
		CHECK_EQ_UINT(f->size, want[i].size, want[i].name);
		CHECK_EQ_STR(f->struct_type, want[i].struct_type, want[i].name);
		CHECK_EQ_UINT(f->reserved, 0, want[i].name);
	}
	for (size_t i = sizeof(want) / sizeof(want[0]); i < UEVENT_FIELDS_MAX; i++) {
		static const struct uevent_field zero;

		CHECK(!memcmp(&d.field[i], &zero, sizeof(zero)), "unused field %zu is zero", i);
	}
}

TEST(uevent_parse_reason_is_cut_and_optional)
{
	static struct uevent_def d;
	char why[8];

	memset(why, 'x', sizeof(why));
	CHECK_EQ_INT(parse_exact("ev long a", strlen("ev long a"), &d, why, sizeof(why)), -EINVAL,
		     "cut reason");
	CHECK_EQ_STR(why, "unknown", "cut to the buffer, NUL-terminated");
	CHECK_EQ_INT(parse_exact("ev long a", strlen("ev long a"), &d, NULL, 0), -EINVAL,
		     "no reason buffer");
	CHECK_EQ_INT(parse_exact("ev u32 a", strlen("ev u32 a"), &d, NULL, 0), 0, "no reason");
	CHECK_EQ_INT(parse_exact("", 0, &d, NULL, 0), -EINVAL, "len 0");
}

TEST(uevent_def_same)
{
	static const struct {
		const char *a;
		const char *b;
		bool same;
	} rows[] = {
	    {"ev u32 a;char[16] s", "ev u32 a;char[16] s", true},
	    {"ev u32 a;char[16] s", "  ev\tu32   a ;\tchar[16]  s ;;", true},
	    {"ev u32 a;char[16] s", "ev u32 a;char[0x10] s", true},
	    {"ev unsigned char c", "ev unsigned\t\tchar c", true},
	    {"ev", "ev ;", true},
	    {"ev u32 a;char[16] s", "ev char[16] s;u32 a", false},
	    {"ev u32 a;char[16] s", "ev u32 a;char[17] s", false},
	    {"ev u32 a;char[16] s", "ev s32 a;char[16] s", false},
	    {"ev u32 a;char[16] s", "ev unsigned int a;char[16] s", false},
	    {"ev u32 a;char[16] s", "ev u32 b;char[16] s", false},
	    {"ev u32 a;char[16] s", "ev2 u32 a;char[16] s", false},
	    {"ev u32 a;char[16] s", "ev u32 a", false},
	    {"ev u32 a;char[16] s", "ev u32 a;unsigned char[16] s", false},
	    {"ev __data_loc char[] s", "ev __rel_loc char[] s", false},
	    {"ev struct p x 8", "ev struct q x 8", false},
	    {"ev struct p x 8", "ev struct p x 4", false},
	    {"ev struct p x 8", "ev u64 x", false},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		static struct uevent_def a, b;
		char why[WHY_SIZE] = "";

		CHECK_EQ_INT(parse(rows[i].a, &a, why), 0, rows[i].a);
		CHECK_EQ_INT(parse(rows[i].b, &b, why), 0, rows[i].b);
		CHECK(uevent_def_same(&a, &b) == rows[i].same, "\"%s\" and \"%s\": same is %d",
		      rows[i].a, rows[i].b, !rows[i].same);
		CHECK(uevent_def_same(&b, &a) == rows[i].same, "\"%s\" and \"%s\": symmetric",
		      rows[i].b, rows[i].a);
	}
}

TEST(uevent_def_format_canonical)
{
	static const struct {
		const char *desc;
		const char *text;
	} rows[] = {
	    {"ev", "ev"},
	    {" ev ;; ", "ev"},
	    {"  ev  u32 a ; char[0x10]  s ;", "ev u32 a;char[16] s"},
	    {"ev unsigned \t char c;unsigned   short d;unsigned int e",
	     "ev unsigned char c;unsigned short d;unsigned int e"},
	    {"ev struct point p 0x8", "ev struct point p 8"},
	    {"ev unsigned char[3] b", "ev unsigned char[3] b"},
	    {"ev __data_loc  char[] s;__rel_loc unsigned\tchar[] b",
	     "ev __data_loc char[] s;__rel_loc unsigned char[] b"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		static struct uevent_def d;
		char why[WHY_SIZE] = "";
		char text[TEXT_SIZE];

		CHECK_EQ_INT(parse(rows[i].desc, &d, why), 0, rows[i].desc);
		CHECK_EQ_INT(uevent_def_format(&d, text, sizeof(text)), (int)strlen(rows[i].text),
			     rows[i].desc);
		CHECK_EQ_STR(text, rows[i].text, rows[i].desc);
	}
}

/* Every good row of the table: parse, format, parse again, the same. */
TEST(uevent_def_format_round_trip)
{
	for (size_t i = 0; i < sizeof(good_rows) / sizeof(good_rows[0]); i++) {
		static struct uevent_def a, b;
		char why[WHY_SIZE] = "";
		char text[TEXT_SIZE];
		char again[TEXT_SIZE];
		int n;

		if (parse(good_rows[i].desc, &a, why)) {
			continue;
		}
		n = uevent_def_format(&a, text, sizeof(text));
		CHECK(n > 0 && (size_t)n < sizeof(text), "%s: length %d", good_rows[i].desc, n);
		CHECK_EQ_INT(parse(text, &b, why), 0, text);
		CHECK(uevent_def_same(&a, &b), "\"%s\" reads back as \"%s\"", good_rows[i].desc,
		      text);
		uevent_def_format(&b, again, sizeof(again));
		CHECK_EQ_STR(again, text, "canonical text is a fixed point");
	}
}

TEST(uevent_def_format_truncates_like_snprintf)
{
	static struct uevent_def d;
	char why[WHY_SIZE] = "";
	char text[6];

	CHECK_EQ_INT(parse("ev u32 a;char[16] s", &d, why), 0, why);
	CHECK_EQ_INT(uevent_def_format(&d, NULL, 0), 19, "size 0");
	memset(text, 'x', sizeof(text));
	CHECK_EQ_INT(uevent_def_format(&d, text, sizeof(text)), 19, "cut");
	CHECK_EQ_STR(text, "ev u3", "cut text");
}

/* A payload as the tests build it: bytes, and what the fixed part holds. */
struct payload {
	uint8_t b[UEVENT_PAYLOAD_MAX + 8];
	size_t len;
};

static void put_le(struct payload *p, size_t off, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		p->b[off + i] = (uint8_t)(v >> (8 * i));
	}
}

static void put_bytes(struct payload *p, size_t off, const void *s, size_t n)
{
	memcpy(p->b + off, s, n);
	if (off + n > p->len) {
		p->len = off + n;
	}
}

/* The check and the text, each on a heap copy of exactly len bytes. */
static int check_exact(const struct uevent_def *d, const struct payload *p, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, p->b, len);
	rc = uevent_payload_check(d, copy, len);
	free(copy);
	return rc;
}

static int format_exact(const struct uevent_def *d, const struct payload *p, size_t len, char *buf,
			size_t size)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, p->b, len);
	rc = uevent_payload_format(d, copy, len, buf, size);
	free(copy);
	return rc;
}

/*
 * "ev u32 a;__data_loc char[] s;__rel_loc char[] r;__data_loc unsigned
 * char[] b": fixed part 16 bytes, then "hi" at 16, "yo!" at 19 (the
 * relative offset 7 counts from 12, the end of r's location), 0xbe 0xef
 * at 23.
 */
#define DYN_DESC "ev u32 a;__data_loc char[] s;__rel_loc char[] r;__data_loc unsigned char[] b"

static void dyn_payload(struct payload *p)
{
	memset(p, 0, sizeof(*p));
	p->len = 16;
	put_le(p, 0, 7, 4);
	put_le(p, 4, UEVENT_LOC_MAKE(3, 16), 4);
	put_le(p, 8, UEVENT_LOC_MAKE(4, 7), 4);
	put_le(p, 12, UEVENT_LOC_MAKE(2, 23), 4);
	put_bytes(p, 16, "hi", 3);
	put_bytes(p, 19, "yo!", 4);
	put_bytes(p, 23, "\xbe\xef", 2);
}

TEST(uevent_payload_check)
{
	static struct uevent_def d, none, fixed;
	char why[WHY_SIZE] = "";
	struct payload p;

	CHECK_EQ_INT(parse(DYN_DESC, &d, why), 0, why);
	CHECK_EQ_INT(parse("none", &none, why), 0, why);
	CHECK_EQ_INT(parse("fixed char[200] s", &fixed, why), 0, why);

	dyn_payload(&p);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), 0, "good payload");
	CHECK_EQ_INT(check_exact(&d, &p, 15), -EINVAL, "shorter than the fixed part");
	CHECK_EQ_INT(check_exact(&d, &p, 0), -EINVAL, "empty");
	CHECK_EQ_INT(check_exact(&d, &p, 24), -EFAULT, "b's data past the end");
	CHECK_EQ_INT(check_exact(&d, &p, UEVENT_PAYLOAD_MAX), 0, "trailing bytes are fine");
	CHECK_EQ_INT(check_exact(&d, &p, UEVENT_PAYLOAD_MAX + 1), -E2BIG, "over the limit");

	dyn_payload(&p);
	put_le(&p, 4, UEVENT_LOC_MAKE(3, 30), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "data_loc outside the payload");
	put_le(&p, 4, UEVENT_LOC_MAKE(UEVENT_LOC_OFFSET_MASK, 16), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "data_loc size past the end");
	put_le(&p, 4, UEVENT_LOC_MAKE(2, 16), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "string without a NUL");
	put_le(&p, 4, UEVENT_LOC_MAKE(0, 16), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "empty string");
	put_le(&p, 4, UEVENT_LOC_MAKE(1, 18), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), 0, "a string that is only its NUL");
	put_le(&p, 4, UEVENT_LOC_MAKE(3, 8), 4);
	p.b[9] = 0;
	CHECK_EQ_INT(check_exact(&d, &p, p.len), 0, "inside the fixed part is allowed");

	/* rel_loc counts from the end of its location word, not from 0. */
	dyn_payload(&p);
	put_le(&p, 8, UEVENT_LOC_MAKE(4, 19), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "rel_loc 19 is byte 31: outside");
	put_le(&p, 8, UEVENT_LOC_MAKE(4, 13), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "rel_loc 13 is byte 25: outside");
	put_le(&p, 8, UEVENT_LOC_MAKE(1, 6), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), 0, "rel_loc 6 is byte 18, the NUL of \"hi\"");

	/* Dynamic bytes may be empty, even at the very end. */
	dyn_payload(&p);
	put_le(&p, 12, UEVENT_LOC_MAKE(0, 25), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), 0, "empty bytes at the end");
	put_le(&p, 12, UEVENT_LOC_MAKE(0, 26), 4);
	CHECK_EQ_INT(check_exact(&d, &p, p.len), -EFAULT, "empty bytes past the end");

	memset(&p, 0, sizeof(p));
	CHECK_EQ_INT(check_exact(&none, &p, 0), 0, "no fields, no payload");
	CHECK_EQ_INT(check_exact(&none, &p, 3), 0, "no fields, some bytes");
	CHECK_EQ_INT(check_exact(&fixed, &p, UEVENT_PAYLOAD_MAX), 0, "exactly the limit");
	CHECK_EQ_INT(check_exact(&fixed, &p, UEVENT_PAYLOAD_MAX - 1), -EINVAL, "one short");
}

TEST(uevent_payload_format)
{
	static struct uevent_def d;
	char why[WHY_SIZE] = "";
	char text[TEXT_SIZE];
	struct payload p;

	/* Integers of every width at their extremes. */
	CHECK_EQ_INT(parse("ev u8 a;s8 b;u16 c;s16 d;u32 e;s32 f;u64 g;s64 h", &d, why), 0, why);
	memset(&p, 0, sizeof(p));
	put_le(&p, 0, 0xff, 1);
	put_le(&p, 1, 0xff, 1);
	put_le(&p, 2, 0xffff, 2);
	put_le(&p, 4, 0x8000, 2);
	put_le(&p, 6, 0xffffffff, 4);
	put_le(&p, 10, 0x80000000, 4);
	put_le(&p, 14, UINT64_MAX, 8);
	put_le(&p, 22, 0x8000000000000000ull, 8);
	format_exact(&d, &p, d.fixed_size, text, sizeof(text));
	CHECK_EQ_STR(text,
		     "a=255 b=-1 c=65535 d=-32768 e=4294967295 f=-2147483648 "
		     "g=18446744073709551615 h=-9223372036854775808",
		     "extremes");
	memset(&p, 0, sizeof(p));
	put_le(&p, 1, 0x7f, 1);
	put_le(&p, 22, INT64_MAX, 8);
	format_exact(&d, &p, d.fixed_size, text, sizeof(text));
	CHECK_EQ_STR(text, "a=0 b=127 c=0 d=0 e=0 f=0 g=0 h=9223372036854775807", "zeros");

	CHECK_EQ_INT(
	    parse("ev char a;unsigned char b;short c;unsigned short d;int e;unsigned int f", &d,
		  why),
	    0, why);
	memset(&p, 0, sizeof(p));
	put_le(&p, 0, 0xfe, 1);
	put_le(&p, 1, 0xfe, 1);
	put_le(&p, 2, 0xfffe, 2);
	put_le(&p, 4, 0xfffe, 2);
	put_le(&p, 6, 0xfffffffe, 4);
	put_le(&p, 10, 0xfffffffe, 4);
	format_exact(&d, &p, d.fixed_size, text, sizeof(text));
	CHECK_EQ_STR(text, "a=-2 b=254 c=-2 d=65534 e=-2 f=4294967294", "C names");

	/* Fixed arrays and structs. */
	CHECK_EQ_INT(parse("ev char[8] s;unsigned char[3] b;struct pt p 2;char[4] t", &d, why), 0,
		     why);
	memset(&p, 0, sizeof(p));
	put_bytes(&p, 0, "h\"\\\n\x80\0xx", 8);
	put_bytes(&p, 8, "\x0a\x0b\x0c", 3);
	put_bytes(&p, 11, "\xff\xee", 2);
	put_bytes(&p, 13, "abcd", 4);
	format_exact(&d, &p, d.fixed_size, text, sizeof(text));
	CHECK_EQ_STR(text, "s=\"h\\\"\\\\\\x0a\\x80\" b=0a0b0c p=ffee t=\"abcd\"", "arrays");

	/* Dynamic fields, good and bad. */
	CHECK_EQ_INT(parse(DYN_DESC, &d, why), 0, why);
	dyn_payload(&p);
	format_exact(&d, &p, p.len, text, sizeof(text));
	CHECK_EQ_STR(text, "a=7 s=\"hi\" r=\"yo!\" b=beef", "dynamic");
	put_le(&p, 4, UEVENT_LOC_MAKE(3, 30), 4);
	put_le(&p, 8, UEVENT_LOC_MAKE(2, 7), 4);
	put_le(&p, 12, UEVENT_LOC_MAKE(0, 25), 4);
	format_exact(&d, &p, p.len, text, sizeof(text));
	CHECK_EQ_STR(text, "a=7 s=<bad> r=<bad> b=", "bad locations, no NUL, no bytes");
	format_exact(&d, &p, 6, text, sizeof(text));
	CHECK_EQ_STR(text, "a=7 s=<bad> r=<bad> b=<bad>", "cut before the fixed part ends");

	/* No fields; output cut like snprintf. */
	CHECK_EQ_INT(parse("none", &d, why), 0, why);
	memset(text, 'x', sizeof(text));
	CHECK_EQ_INT(format_exact(&d, &p, 0, text, sizeof(text)), 0, "no fields");
	CHECK_EQ_STR(text, "", "no fields");
	CHECK_EQ_INT(parse(DYN_DESC, &d, why), 0, why);
	dyn_payload(&p);
	CHECK_EQ_INT(format_exact(&d, &p, p.len, NULL, 0), 25, "size 0");
	memset(text, 'x', sizeof(text));
	CHECK_EQ_INT(format_exact(&d, &p, p.len, text, 10), 25, "cut");
	CHECK_EQ_STR(text, "a=7 s=\"hi", "cut text");
}
