/*
 * Tests a saved file's PREDICATE section (abi/trace_file.h, A SAVE'S
 * PREDICATE) in tools/spoor-trace: a save that carries one reads with its
 * text, `info` shows it with the filter's words, its events print as
 * without it, an older minor without it still reads, and every way the
 * section can be wrong is refused in one line that names its byte. The
 * rows build the section with gen_file() and edit its bytes; each edit
 * fixes the checksum after it, so the check it aims at is the one that
 * refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/info.h"
#include "tools/spoor-trace/text.h"
#include "tools/spoor-trace/view.h"

#define HEAD	 sizeof(struct ttrace_file_section)
#define HDR	 sizeof(struct ttrace_file_header)
#define PAYLOAD	 (HDR + HEAD)					  /* the section's head struct */
#define TEXT	 (PAYLOAD + sizeof(struct ttrace_file_predicate)) /* its text */
#define PRED	 "pid == 3 && result < 0"			  /* 22 bytes: 2 of padding */
#define WANT_MAX TFILE_WHY_MAX
#define OUT_MAX	 8192

/* g's save, its sections per CPU, with a PREDICATE section of pred first (or as order). */
static uint8_t *save_of(struct gen *g, const char *pred, const uint32_t *order, size_t *len)
{
	static const uint32_t with_pred[] = {TTRACE_FILE_PREDICATE,
					     TTRACE_FILE_CPU_EVENTS,
					     TTRACE_FILE_AUX_DURABLE,
					     TTRACE_FILE_AUX_RING,
					     TTRACE_FILE_LEDGER,
					     TTRACE_FILE_END,
					     0};

	snprintf(g->pred, sizeof(g->pred), "%s", pred);
	return gen_file(g, order ? order : with_pred, len);
}

/* The sample's save, as save_of(). */
static uint8_t *save(struct gen *g, const char *pred, const uint32_t *order, size_t *len)
{
	gen_sample(g, false);
	return save_of(g, pred, order, len);
}

/* The refusal of the file, or "" when read; *f holds it when read (free it). */
static const char *parse(const uint8_t *buf, size_t len, struct tfile *f)
{
	static char why[TFILE_WHY_MAX];

	return tfile_parse(buf, len, f, why, sizeof(why)) ? why : "";
}

/* What converter writes of the file at buf into out (NUL-terminated). */
static void convert(const uint8_t *buf, size_t len, int (*converter)(struct tview *, FILE *),
		    char *out, size_t size)
{
	struct tfile f;
	struct tview v;
	FILE *m = fmemopen(out, size, "w");

	out[0] = '\0';
	if (!m) {
		CHECK(0, "no memory stream");
		return;
	}
	const char *why = parse(buf, len, &f);
	CHECK_EQ_STR(why, "", "the file reads");
	if (why[0] || tview_init(&v, &f)) {
		CHECK(!why[0], "cannot convert");
		fclose(m);
		return;
	}
	CHECK_EQ_INT(converter(&v, m), 0, "converts");
	fclose(m);
	tview_fini(&v);
	tfile_free(&f);
}

TEST(spoor_trace_reads_a_saves_predicate)
{
	struct gen g;
	struct tfile f;
	size_t len;
	uint8_t *buf = save(&g, PRED, NULL, &len);

	CHECK_EQ_STR(parse(buf, len, &f), "", "a save with its predicate");
	CHECK_EQ_STR(f.pred, PRED, "the predicate as saved");
	CHECK_EQ_UINT(f.events, g.events, "every event read past it");
	tfile_free(&f);
	free(buf);
	gen_free(&g);
}

TEST(spoor_trace_info_shows_the_selection_with_its_predicate)
{
	static const struct {
		struct traced_filter filter;
		const char *pred;
		const char *line;
	} rows[] = {
	    {{0}, "", "selection: every event\n"},
	    {{0}, PRED, "selection: if " PRED "\n"},
	    {{.flags = TRACED_F_CPUS | TRACED_F_KINDS,
	      .cpus = 0x5,
	      .kinds = {1ull << TTRACE_KIND_syscall_exit}},
	     "result < 0",
	     "selection: cpu=0 cpu=2 kind=syscall_exit if result < 0\n"},
	    /* a quoted string's bytes that would break the line */
	    {{0}, "comm == \"a\x1b[2Jb\"", "selection: if comm == \"a?[2Jb\"\n"},
	};
	static const uint32_t no_pred[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					   TTRACE_FILE_AUX_RING,   TTRACE_FILE_LEDGER,
					   TTRACE_FILE_END,	   0};
	static char out[OUT_MAX];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct gen g;
		size_t len;
		gen_sample(&g, false);
		g.hdr.filter = rows[i].filter;
		uint8_t *buf = save_of(&g, rows[i].pred, rows[i].pred[0] ? NULL : no_pred, &len);
		gen_free(&g);
		convert(buf, len, info_write, out, sizeof(out));
		CHECK(strstr(out, rows[i].line) != NULL, "row %zu: no line \"%s\" in:\n%s", i,
		      rows[i].line, out);
		free(buf);
	}
}

TEST(spoor_trace_text_of_a_save_is_the_same_with_its_predicate)
{
	static const uint32_t no_pred[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					   TTRACE_FILE_AUX_RING,   TTRACE_FILE_LEDGER,
					   TTRACE_FILE_END,	   0};
	static char with[OUT_MAX], without[OUT_MAX];
	struct gen g;
	size_t len;
	uint8_t *buf = save(&g, PRED, NULL, &len);

	convert(buf, len, text_convert, with, sizeof(with));
	free(buf);
	gen_free(&g);
	buf = save(&g, PRED, no_pred, &len);
	convert(buf, len, text_convert, without, sizeof(without));
	CHECK(with[0] && !strcmp(with, without), "the lines differ:\n%s\n--\n%s", with, without);
	free(buf);
	gen_free(&g);
}

TEST(spoor_trace_reads_a_minor_4_save_without_a_predicate)
{
	static const uint32_t minor4[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					  TTRACE_FILE_AUX_RING,	  TTRACE_FILE_LEDGER,
					  TTRACE_FILE_END,	  0};
	struct gen g;
	struct tfile f;
	size_t len;

	gen_sample(&g, false);
	g.hdr.version_minor = 4;
	uint8_t *buf = gen_file(&g, minor4, &len);
	CHECK_EQ_STR(parse(buf, len, &f), "", "a minor 4 save");
	CHECK_EQ_STR(f.pred, "", "no predicate");
	tfile_free(&f);
	free(buf);
	gen_free(&g);
}

/* A file being edited, and the refusal it must get. */
struct edit {
	uint8_t *buf;
	size_t len;
	char want[WANT_MAX];
};

static void set32(struct edit *e, size_t at, uint32_t v)
{
	memcpy(e->buf + at, &v, sizeof(v));
}

static void len_zero(struct edit *e)
{
	set32(e, PAYLOAD, 0);
	snprintf(e->want, WANT_MAX, "byte %zu: a predicate of 0 bytes is not 1 to %d", PAYLOAD,
		 TTRACE_PRED_TEXT_MAX);
}

static void len_too_long(struct edit *e)
{
	set32(e, PAYLOAD, TTRACE_PRED_TEXT_MAX + 1);
	snprintf(e->want, WANT_MAX, "byte %zu: a predicate of %d bytes is not 1 to %d", PAYLOAD,
		 TTRACE_PRED_TEXT_MAX + 1, TTRACE_PRED_TEXT_MAX);
}

static void len_past_section(struct edit *e)
{
	set32(e, PAYLOAD, sizeof(PRED) + 8);
	snprintf(e->want, WANT_MAX,
		 "byte %zu: a PREDICATE section of 32 bytes does not hold its 31 bytes of text "
		 "padded to 8",
		 HDR);
}

static void reserved_set(struct edit *e)
{
	set32(e, PAYLOAD + 4, 1);
	snprintf(e->want, WANT_MAX, "byte %zu: a PREDICATE section's reserved word is 0x1, not 0",
		 PAYLOAD + 4);
}

static void nul_inside(struct edit *e)
{
	e->buf[TEXT + 4] = '\0';
	snprintf(e->want, WANT_MAX, "byte %zu: a NUL byte in the predicate", TEXT + 4);
}

static void padding_set(struct edit *e)
{
	e->buf[TEXT + sizeof(PRED)] = ' ';
	snprintf(e->want, WANT_MAX, "byte %zu: padding not zero in the predicate",
		 TEXT + sizeof(PRED));
}

static void does_not_compile(struct edit *e)
{
	memcpy(e->buf + TEXT + 12, "rsult ", 6);
	snprintf(e->want, WANT_MAX,
		 "byte %zu: the predicate does not compile: bad filter: at 13: unknown field "
		 "'rsult'",
		 TEXT);
}

static void out_of_range(struct edit *e)
{
	memcpy(e->buf + TEXT, "cpu == 9", 8);
	snprintf(e->want, WANT_MAX,
		 "byte %zu: the predicate does not compile: bad filter: at 8: value out of range "
		 "(at most 7)",
		 TEXT);
}

static void older_minor(struct edit *e)
{
	e->buf[offsetof(struct ttrace_file_header, version_minor)] = 4;
	snprintf(e->want, WANT_MAX, "byte %zu: a PREDICATE section in a file of minor 4 (from 5)",
		 HDR);
}

static const struct {
	const char *name;
	void (*edit)(struct edit *e);
} edits[] = {
    {"length zero", len_zero},
    {"longer than a predicate may be", len_too_long},
    {"longer than its section", len_past_section},
    {"reserved set", reserved_set},
    {"a NUL inside", nul_inside},
    {"padding not zero", padding_set},
    {"a field no kind has", does_not_compile},
    {"a value out of range", out_of_range},
    {"in a file of minor 4", older_minor},
};

TEST(spoor_trace_refuses_a_bad_predicate_section_in_one_line)
{
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		struct gen g;
		struct tfile f;
		struct edit e;
		e.buf = save(&g, PRED, NULL, &e.len);
		gen_free(&g);
		edits[i].edit(&e);
		gen_fix_checksum(e.buf, e.len);
		const char *why = parse(e.buf, e.len, &f);
		CHECK_EQ_STR(why, e.want, edits[i].name);
		if (!why[0]) {
			tfile_free(&f);
		}
		free(e.buf);
	}
}

TEST(spoor_trace_refuses_a_predicate_section_out_of_its_place)
{
	static const uint32_t after_events[] = {TTRACE_FILE_CPU_EVENTS,
						TTRACE_FILE_PREDICATE,
						TTRACE_FILE_AUX_DURABLE,
						TTRACE_FILE_AUX_RING,
						TTRACE_FILE_LEDGER,
						TTRACE_FILE_END,
						0};
	static const uint32_t twice[] = {TTRACE_FILE_PREDICATE,	 TTRACE_FILE_PREDICATE,
					 TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					 TTRACE_FILE_AUX_RING,	 TTRACE_FILE_LEDGER,
					 TTRACE_FILE_END,	 0};
	char want[WANT_MAX];
	struct gen g;
	struct tfile f;
	size_t len, at;

	uint8_t *buf = save(&g, PRED, after_events, &len);
	at = HDR; /* past the CPU_EVENTS sections, a CPU each */
	for (uint32_t c = 0; c < g.hdr.num_cpus; c++) {
		struct ttrace_file_section s;
		memcpy(&s, buf + at, sizeof(s));
		at += HEAD + s.size;
	}
	snprintf(want, sizeof(want), "byte %zu: a PREDICATE section after the first section", at);
	CHECK_EQ_STR(parse(buf, len, &f), want, "after the events");
	free(buf);
	gen_free(&g);

	buf = save(&g, PRED, twice, &len);
	snprintf(want, sizeof(want), "byte %zu: a PREDICATE section after the first section",
		 HDR + HEAD + sizeof(struct ttrace_file_predicate) + 24);
	CHECK_EQ_STR(parse(buf, len, &f), want, "twice");
	free(buf);
	gen_free(&g);
}

TEST(spoor_trace_refuses_a_predicate_section_in_a_recording)
{
	struct ttrace_file_section s = {.type = TTRACE_FILE_PREDICATE, .size = 8 + 24};
	struct ttrace_file_predicate h = {.len = sizeof(PRED) - 1};
	char want[WANT_MAX];
	struct gen g;
	struct tfile f;
	size_t len;

	gen_sample(&g, false);
	uint8_t *rec = gen_recording(&g, 4, false, &len, NULL, NULL);
	uint8_t *buf = calloc(1, len + sizeof(s) + s.size);
	memcpy(buf, rec, len);
	memcpy(buf + len, &s, sizeof(s));
	memcpy(buf + len + sizeof(s), &h, sizeof(h));
	memcpy(buf + len + sizeof(s) + sizeof(h), PRED, h.len);
	snprintf(want, sizeof(want), "byte %zu: a PREDICATE section where a recording has none",
		 len);
	CHECK_EQ_STR(parse(buf, len + sizeof(s) + s.size, &f), want, "a recording's");
	free(buf);
	free(rec);
	gen_free(&g);
}
