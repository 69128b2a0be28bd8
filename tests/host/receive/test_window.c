/*
 * The host's reader of the export window's ring (tools/spoor-receive/
 * window.c) against windows a hostile guest could write: each a buffer
 * of exactly the window's size, so that AddressSanitizer stops any read
 * past it. Rows of bad control words and records, a guest that changes
 * the window while a record is being taken, and random windows by the
 * thousand: the reader takes good records whole and in order, answers a
 * bad one with one line, and never reads outside the window.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/trace_file.h"
#include "rand.h"
#include "test.h"
#include "tools/spoor-receive/window.h"

#define WIN	    8192
#define CTL	    TTRACE_EXPORT_CTL_SIZE
#define RING	    (WIN - CTL)
#define TAKEN_MAX   (4 * RING)
#define FUZZ_ROUNDS 20000

/* What the sink received, and a change it makes to the window once (a racing guest). */
struct taken {
	uint8_t bytes[TAKEN_MAX];
	size_t len;
	struct window *w;
	void (*race)(struct window *w);
};

static struct ttrace_export_ctl *ctl_of(struct window *w)
{
	return (struct ttrace_export_ctl *)w->base;
}

static const char *sink(void *ctx, const uint8_t *p, uint64_t len)
{
	struct taken *t = ctx;

	if (len > TAKEN_MAX - t->len) {
		return "too much";
	}
	memcpy(t->bytes + t->len, p, len); /* ASan: p's len bytes must be in the window */
	t->len += len;
	if (t->race) {
		t->race(t->w);
		t->race = NULL;
	}
	return NULL;
}

static void window_new(struct window *w)
{
	w->base = calloc(1, WIN);
	w->size = WIN;
	w->tail = 0;
	*ctl_of(w) = (struct ttrace_export_ctl){.magic = TTRACE_EXPORT_MAGIC,
						.version = TTRACE_EXPORT_VERSION,
						.ring_offset = CTL,
						.ring_size = RING};
}

/* Publishes one record of len bytes of value fill, as traced does (E1 to E3, room assumed). */
static void publish(struct window *w, uint32_t len, uint8_t fill)
{
	struct ttrace_export_ctl *c = ctl_of(w);
	uint64_t off = c->head % RING,
		 need = sizeof(struct ttrace_export_rec) + (len + 15) / 16 * 16;

	if (RING - off < need) {
		struct ttrace_export_rec pad = {.magic = TTRACE_EXPORT_PAD, .pos = c->head};
		memcpy(w->base + CTL + off, &pad, sizeof(pad));
		c->head += RING - off;
		off = 0;
	}
	struct ttrace_export_rec r = {.magic = TTRACE_EXPORT_REC, .len = len, .pos = c->head};
	memcpy(w->base + CTL + off, &r, sizeof(r));
	memset(w->base + CTL + off + sizeof(r), fill, len);
	c->head += need;
}

static struct ttrace_export_rec *rec_at(struct window *w, uint64_t pos)
{
	return (struct ttrace_export_rec *)(w->base + CTL + pos % RING);
}

/* The rows' changes to a window holding one good record of 32 bytes, then one of 64. */
static void bad_len(struct window *w)
{
	rec_at(w, 48)->len = 12;
}
static void long_len(struct window *w)
{
	rec_at(w, 48)->len = RING;
}
static void huge_len(struct window *w)
{
	rec_at(w, 48)->len = 0xfffffff8u;
}
static void bad_pos(struct window *w)
{
	rec_at(w, 48)->pos = 48 + RING;
}
static void bad_magic(struct window *w)
{
	rec_at(w, 48)->magic = 0;
}
static void pad_len(struct window *w)
{
	rec_at(w, 48)->magic = TTRACE_EXPORT_PAD;
	rec_at(w, 48)->len = 8;
}
static void head_far(struct window *w)
{
	ctl_of(w)->head = 48 + 2 * RING;
}
static void head_back(struct window *w)
{
	ctl_of(w)->head = (uint64_t)-16;
}
static void head_odd(struct window *w)
{
	ctl_of(w)->head += 8;
}
static void ring_big(struct window *w)
{
	ctl_of(w)->ring_size = WIN;
}
static void ring_wraps(struct window *w)
{
	ctl_of(w)->ring_offset = (uint64_t)-CTL;
}
static void ring_zero(struct window *w)
{
	ctl_of(w)->ring_size = 0;
}
static void ring_inside_ctl(struct window *w)
{
	ctl_of(w)->ring_offset = 16;
}
static void version_next(struct window *w)
{
	ctl_of(w)->version = TTRACE_EXPORT_VERSION + 1;
}
static void small_window(struct window *w)
{
	w->size = CTL - 1;
}

static const struct {
	const char *name;
	void (*breaks)(struct window *w);
	const char *why; /* words of the one line */
	size_t taken;	 /* bytes taken before it */
} rows[] = {
    {"length not whole words", bad_len, "is not one", 32},
    {"length past the head", long_len, "passes", 32},
    {"length near 4 GiB", huge_len, "passes", 32},
    {"sequence word of the last lap", bad_pos, "says it is at", 32},
    {"magic wrong", bad_magic, "is not one", 32},
    {"pad with a length", pad_len, "is not one", 32},
    {"head two rings ahead", head_far, "not within the ring", 0},
    {"head behind the tail", head_back, "not within the ring", 0},
    {"head not aligned", head_odd, "not within the ring", 0},
    {"ring past the window", ring_big, "does not fit", 0},
    {"ring offset wrapping", ring_wraps, "does not fit", 0},
    {"ring of no bytes", ring_zero, "does not fit", 0},
    {"ring over the control page", ring_inside_ctl, "does not fit", 0},
    {"another version", version_next, "not an export ring", 0},
    {"window smaller than its control page", small_window, "smaller", 0},
};

TEST(window_bad_rings_get_one_line_and_take_nothing_past_them)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct window w;
		static struct taken t;
		window_new(&w);
		publish(&w, 32, 0xaa);
		publish(&w, 64, 0xbb);
		rows[i].breaks(&w);
		t = (struct taken){.w = &w};
		const char *why = window_take(&w, sink, &t);
		CHECK(why && strstr(why, rows[i].why), "%s: got '%s'", rows[i].name,
		      why ? why : "(none)");
		CHECK_EQ_UINT(t.len, rows[i].taken, rows[i].name);
		CHECK(!why || !strchr(why, '\n'), "%s: one line", rows[i].name);
		w.size = WIN;
		free(w.base);
	}
}

TEST(window_takes_records_in_order_across_the_rings_end)
{
	struct window w;
	static struct taken t;
	uint8_t want[TAKEN_MAX];
	size_t n = 0;

	window_new(&w);
	t = (struct taken){.w = &w};
	for (int round = 0; round < 12; round++) {
		uint32_t len =
		    8 * (uint32_t)(1 + round * 97 % 200); /* at most half the ring, as traced */
		publish(&w, len, (uint8_t)round);
		memset(want + n, round, len);
		n += len;
		const char *why = window_take(&w, sink, &t);
		CHECK(!why, "round %d: %s", round, why ? why : "");
		CHECK_EQ_UINT(w.tail, ctl_of(&w)->head, "the tail follows the head");
		CHECK_EQ_UINT(ctl_of(&w)->tail, w.tail, "the window's tail is the host's");
	}
	CHECK_EQ_UINT(t.len, n, "bytes taken");
	CHECK(!memcmp(t.bytes, want, n), "the bytes taken are the bytes published");
	free(w.base);
}

/* A racing guest: the head, the next record and the geometry change while a record is taken. */
static void race_head(struct window *w)
{
	ctl_of(w)->head = 5 * RING;
}
static void race_next(struct window *w)
{
	rec_at(w, 48)->len = RING - 8;
}
static void race_ring(struct window *w)
{
	ctl_of(w)->ring_size = WIN * 4;
}

TEST(window_a_guest_racing_the_host_changes_nothing_it_has_checked)
{
	void (*races[])(struct window *) = {race_head, race_next, race_ring};

	for (size_t i = 0; i < sizeof(races) / sizeof(races[0]); i++) {
		struct window w;
		static struct taken t;
		window_new(&w);
		publish(&w, 32, 1);
		publish(&w, 64, 2);
		t = (struct taken){.w = &w, .race = races[i]};
		const char *why = window_take(&w, sink, &t);
		/*
		 * The head read before the first record holds for this take; the
		 * next record is checked as it is when its turn comes.
		 */
		if (races[i] == race_next) {
			CHECK(why && strstr(why, "passes"), "race %zu: %s", i,
			      why ? why : "(none)");
			CHECK_EQ_UINT(t.len, 32, "race next");
		} else {
			CHECK(!why, "race %zu: %s", i, why ? why : "");
			CHECK_EQ_UINT(t.len, 96, "race head or ring: what was checked is taken");
			CHECK(window_take(&w, sink, &t) != NULL, "race %zu: the next take sees it",
			      i);
		}
		free(w.base);
	}
}

TEST(window_skip_jumps_to_an_aligned_head_only)
{
	struct window w;

	window_new(&w);
	ctl_of(&w)->head = 1000 * 16;
	CHECK(!window_skip(&w), "an aligned head is skipped to");
	CHECK_EQ_UINT(w.tail, 16000, "tail");
	ctl_of(&w)->head = 16001;
	CHECK(window_skip(&w) != NULL, "a head not on a record boundary is refused");
	CHECK_EQ_UINT(w.tail, 16000, "tail unchanged");
	window_refuse(&w, TTRACE_EXPORT_REFUSED_LIMIT);
	CHECK_EQ_UINT(ctl_of(&w)->refused, TTRACE_EXPORT_REFUSED_LIMIT, "refused");
	free(w.base);
}

TEST(window_random_windows_never_read_outside_it)
{
	uint64_t seed = 0x5eed0033;
	static struct taken t;

	for (int round = 0; round < FUZZ_ROUNDS; round++) {
		struct window w;
		window_new(&w);
		int records = (int)(test_random(&seed) % 6);
		for (int i = 0; i < records; i++) {
			publish(&w, 8 * (uint32_t)(test_random(&seed) % 200), (uint8_t)i);
		}
		w.tail = ctl_of(&w)->head - (ctl_of(&w)->head ? 16 * (test_random(&seed) % 4) : 0);
		int flips = 1 + (int)(test_random(&seed) % 4);
		for (int i = 0; i < flips; i++) {
			/* Mostly the control words and the records' heads, where the sizes are. */
			uint64_t at = test_random(&seed) % (test_random(&seed) % 2 ? 192 : WIN);
			w.base[at] ^= (uint8_t)(1u << (test_random(&seed) % 8));
		}
		t = (struct taken){.w = &w};
		uint64_t head = ctl_of(&w)->head;
		const char *why = window_take(&w, sink, &t);
		CHECK(why || w.tail == head, "round %d: a clean take ends at the head", round);
		CHECK(w.tail % TTRACE_EXPORT_ALIGN == 0, "round %d: the tail stays aligned", round);
		free(w.base);
	}
}
