/*
 * Tests kernel/init/cmdline.c, the command-line parser. Each row is a
 * command line, the value every option of a small test table must hold
 * after parsing it, and the warnings, word for word, it must produce.
 * Every row starts from the same defaults, so a row that expects a
 * default also checks that a bad word left the option alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "init/cmdline.h"
#include "test.h"

#define SMP_DEFAULT	1
#define SMP_MIN		1
#define SMP_MAX		64
#define MODE_DEFAULT	0 /* "rr" */
#define CONSOLE_DEFAULT "serial"
#define CONSOLE_SIZE	8 /* holds 7 characters */
#define MEM_DEFAULT	0

static uint64_t smp;
static uint32_t mode;
static char console[CONSOLE_SIZE];
static uint64_t mem; /* no range limit: only overflow makes it fail */

static const char *const modes[] = {"rr", "fifo", "idle", NULL};

static const struct cmdline_option options[] = {
    {.name = "smp", .type = CMDLINE_UINT, .value = &smp, .min = SMP_MIN, .max = SMP_MAX},
    {.name = "sched", .type = CMDLINE_CHOICE, .value = &mode, .choices = modes},
    {.name = "console", .type = CMDLINE_STRING, .value = console, .size = CONSOLE_SIZE},
    {.name = "mem", .type = CMDLINE_UINT, .value = &mem, .min = 0, .max = UINT64_MAX},
};

#define MAX_WARNINGS 4

static char warnings[MAX_WARNINGS][256];
static int nwarnings; /* calls to warn(), stored or not */

static void warn(const char *message)
{
	if (nwarnings < MAX_WARNINGS) {
		snprintf(warnings[nwarnings], sizeof(warnings[0]), "%s", message);
	}
	nwarnings++;
}

/*
 * Words at the length limit. A word must fit the parser's buffer with its
 * NUL, so CMDLINE_WORD_MAX - 1 characters is the longest one accepted.
 */
#define ZEROS_10      "0000000000"
#define ZEROS_40      ZEROS_10 ZEROS_10 ZEROS_10 ZEROS_10
#define ZEROS_120     ZEROS_40 ZEROS_40 ZEROS_40
#define LONGEST_WORD  "smp=" ZEROS_120 "008"
#define TOO_LONG_WORD "smp=" ZEROS_120 "0008"
_Static_assert(sizeof(LONGEST_WORD) - 1 == CMDLINE_WORD_MAX - 1, "longest word");
_Static_assert(sizeof(TOO_LONG_WORD) - 1 == CMDLINE_WORD_MAX, "word one too long");

/* The exact warning texts, spelled once. */
#define UNKNOWN(name)  "cmdline: unknown option '" name "', ignored"
#define NO_VALUE(name) "cmdline: option '" name "' needs a value, ignored"
#define BAD(value, name, expected)                                                                 \
	"cmdline: bad value '" value "' for '" name "' (expected " expected "), ignored"
#define SMP_RANGE	     "1..64"
#define MEM_RANGE	     "0..18446744073709551615"
#define MODES		     "rr fifo idle"
#define TOO_LONG(name, max)  "cmdline: value for '" name "' longer than " max " bytes, ignored"
#define WORD_TOO_LONG(start) "cmdline: word '" start "...' too long, ignored"

/*
 * A row lists the warnings it expects, in order, and the option values it
 * expects after parsing; their count is the number of warnings expected.
 * A value left out (0 or NULL) stands for the option's default. That loses
 * nothing: smp cannot be 0 nor console NULL, and sched and mem default to 0.
 */
struct cmdline_row {
	const char *line;
	const char *warn[MAX_WARNINGS];
	uint64_t smp;
	uint32_t mode;
	const char *console;
	uint64_t mem;
};

static const struct cmdline_row rows[] = {
    /* Empty lines and blanks. */
    {.line = ""},
    {.line = "   \t \n"},
    {"smp=4", .smp = 4},
    {"  smp=4 \t\tsched=fifo\n console=vga  ", .smp = 4, .mode = 1, .console = "vga"},
    {"\tsched=idle\t", .mode = 2},
    /* A CRLF line end leaves no carriage return on the last value. */
    {"smp=4 sched=fifo\r\n", .smp = 4, .mode = 1},

    /* Unknown options: only the name is quoted; the rest of the line still counts. */
    {"quiet", .warn = {UNKNOWN("quiet")}},
    {"foo=bar smp=2", .warn = {UNKNOWN("foo")}, .smp = 2},
    {"sm=2 smpx=2", .warn = {UNKNOWN("sm"), UNKNOWN("smpx")}},
    {"=5", .warn = {UNKNOWN("")}},
    {"SMP=2", .warn = {UNKNOWN("SMP")}},

    /* Missing values. */
    {"smp", .warn = {NO_VALUE("smp")}},
    {"smp=", .warn = {NO_VALUE("smp")}},
    {"sched=", .warn = {NO_VALUE("sched")}},
    {"console", .warn = {NO_VALUE("console")}},
    {"smp= 4", .warn = {NO_VALUE("smp"), UNKNOWN("4")}},

    /* Unsigned numbers: decimal, hex, the range and the digits. */
    {"smp=1", .smp = 1},
    {"smp=64", .smp = 64},
    {"smp=0x10", .smp = 16},
    {"smp=0X1f", .smp = 31},
    {"smp=0x3A", .smp = 58},
    {"smp=007", .smp = 7},
    {"smp=0", .warn = {BAD("0", "smp", SMP_RANGE)}},
    {"smp=65", .warn = {BAD("65", "smp", SMP_RANGE)}},
    {"smp=0x41", .warn = {BAD("0x41", "smp", SMP_RANGE)}},
    {"smp=0x", .warn = {BAD("0x", "smp", SMP_RANGE)}},
    {"mem=0x", .warn = {BAD("0x", "mem", MEM_RANGE)}}, /* not 0, although 0 is in range */
    {"smp=0xg", .warn = {BAD("0xg", "smp", SMP_RANGE)}},
    {"smp=1a", .warn = {BAD("1a", "smp", SMP_RANGE)}},
    {"smp=-1", .warn = {BAD("-1", "smp", SMP_RANGE)}},
    {"smp=+4", .warn = {BAD("+4", "smp", SMP_RANGE)}},
    {"smp=4k", .warn = {BAD("4k", "smp", SMP_RANGE)}},
    {"mem=18446744073709551615", .mem = UINT64_MAX},
    {"mem=0xffffffffffffffff", .mem = UINT64_MAX},
    /* Overflow: 2^64, a 25-digit number, and 2^64 + 5, which would wrap into range. */
    {"mem=18446744073709551616", .warn = {BAD("18446744073709551616", "mem", MEM_RANGE)}},
    {"mem=0x10000000000000000", .warn = {BAD("0x10000000000000000", "mem", MEM_RANGE)}},
    {"mem=1234567890123456789012345", .warn = {BAD("1234567890123456789012345", "mem", MEM_RANGE)}},
    {"smp=18446744073709551621", .warn = {BAD("18446744073709551621", "smp", SMP_RANGE)}},

    /* Choices: exact and case-sensitive; the warning lists them all. */
    {"sched=fifo", .mode = 1},
    {"sched=deadline", .warn = {BAD("deadline", "sched", MODES)}},
    {"sched=FIFO", .warn = {BAD("FIFO", "sched", MODES)}},
    {"sched=fif", .warn = {BAD("fif", "sched", MODES)}},
    {"sched=fifoo", .warn = {BAD("fifoo", "sched", MODES)}},

    /* Strings: up to size - 1 characters; '=' in a value is just a character. */
    {"console=ttyS0,1", .console = "ttyS0,1"},
    {"console=ttyS0,11", .warn = {TOO_LONG("console", "7")}},
    {"console=a=b", .console = "a=b"},

    /* Word length: the longest word is applied, one more is refused whole. */
    {LONGEST_WORD, .smp = 8},
    {TOO_LONG_WORD, .warn = {WORD_TOO_LONG("smp=000000000000")}},
    {TOO_LONG_WORD " smp=3", .warn = {WORD_TOO_LONG("smp=000000000000")}, .smp = 3},

    /* A bad value keeps the previous good one; the last good one wins. */
    {"smp=8 smp=999", .warn = {BAD("999", "smp", SMP_RANGE)}, .smp = 8},
    {"sched=idle sched=bogus", .warn = {BAD("bogus", "sched", MODES)}, .mode = 2},
    {"console=vga console=toolongvalue", .warn = {TOO_LONG("console", "7")}, .console = "vga"},
    {"smp=2 smp=4 smp=3", .smp = 3},
    {"sched=fifo sched=idle sched=rr", .mode = 0},
    {"console=a console=bb", .console = "bb"},
    {"mem=5 mem=0", .mem = 0},
    {"smp=2 bogus smp= sched=x smp=5",
     .warn = {UNKNOWN("bogus"), NO_VALUE("smp"), BAD("x", "sched", MODES)}, .smp = 5},
};

static void reset(void)
{
	smp = SMP_DEFAULT;
	mode = MODE_DEFAULT;
	snprintf(console, sizeof(console), "%s", CONSOLE_DEFAULT);
	mem = MEM_DEFAULT;
	memset(warnings, 0, sizeof(warnings));
	nwarnings = 0;
}

TEST(cmdline_rows)
{
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
		const struct cmdline_row *r = &rows[n];
		int nwarn = 0;
		char what[64];

		while (nwarn < MAX_WARNINGS && r->warn[nwarn]) {
			nwarn++;
		}
		snprintf(what, sizeof(what), "row %zu \"%.32s\"", n, r->line);
		reset();
		int ret =
		    cmdline_parse(r->line, options, sizeof(options) / sizeof(options[0]), warn);
		CHECK_EQ_UINT(smp, r->smp ? r->smp : SMP_DEFAULT, what);
		CHECK_EQ_UINT(mode, r->mode ? r->mode : MODE_DEFAULT, what);
		CHECK_EQ_STR(console, r->console ? r->console : CONSOLE_DEFAULT, what);
		CHECK_EQ_UINT(mem, r->mem ? r->mem : MEM_DEFAULT, what);
		CHECK_EQ_INT(ret, nwarn, what);
		CHECK_EQ_INT(nwarnings, nwarn, what);
		for (int i = 0; i < nwarn; i++) {
			CHECK_EQ_STR(warnings[i], r->warn[i], what);
		}
	}
}

/* A table with no options: every word is unknown, and nothing is touched. */
TEST(cmdline_empty_table)
{
	reset();
	int ret = cmdline_parse("smp=2 sched=fifo", NULL, 0, warn);
	CHECK_EQ_INT(ret, 2, "no options");
	CHECK_EQ_INT(nwarnings, 2, "no options");
	CHECK_EQ_STR(warnings[0], UNKNOWN("smp"), "no options");
	CHECK_EQ_STR(warnings[1], UNKNOWN("sched"), "no options");
	CHECK_EQ_UINT(smp, SMP_DEFAULT, "no options");
}

/* Powers of two, and 0 for off where the option takes it (ttrace.ring_kb). */
TEST(cmdline_powers_of_two_and_zero_for_off)
{
	static uint64_t ring, aux;
	static const struct cmdline_option pow2[] = {
	    {.name = "ring",
	     .type = CMDLINE_POW2,
	     .value = &ring,
	     .min = 4,
	     .max = 65536,
	     .zero_off = true},
	    {.name = "aux", .type = CMDLINE_POW2, .value = &aux, .min = 4, .max = 65536},
	};
	static const struct {
		const char *line, *warning;
		uint64_t ring, aux;
	} rows[] = {
	    {"ring=0 aux=8", NULL, 0, 8},
	    {"ring=65536 aux=4", NULL, 65536, 4},
	    {"ring=1000", BAD("1000", "ring", "0 or a power of two in 4..65536"), 1, 1},
	    {"ring=2", BAD("2", "ring", "0 or a power of two in 4..65536"), 1, 1},
	    {"ring=0x", BAD("0x", "ring", "0 or a power of two in 4..65536"), 1, 1},
	    {"aux=0", BAD("0", "aux", "a power of two in 4..65536"), 1, 1},
	    {"aux=131072", BAD("131072", "aux", "a power of two in 4..65536"), 1, 1},
	};

	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
		ring = aux = 1; /* the defaults, which a refused value keeps */
		reset();
		int ret = cmdline_parse(rows[n].line, pow2, sizeof(pow2) / sizeof(pow2[0]), warn);
		CHECK_EQ_INT(ret, rows[n].warning ? 1 : 0, rows[n].line);
		CHECK_EQ_UINT(ring, rows[n].ring, rows[n].line);
		CHECK_EQ_UINT(aux, rows[n].aux, rows[n].line);
		if (rows[n].warning) {
			CHECK_EQ_STR(warnings[0], rows[n].warning, rows[n].line);
		}
	}
}
