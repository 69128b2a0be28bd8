/*
 * aux_write: the aux writer (AW1-AW3 of abi/trace.h) and the boot names
 * of the durable part; the readers they pair with are common/trace_aux.c.
 * Every store is one whole 64-bit word, atomic, at ttrace_aux_word().
 */
#include "trace/aux_write.h"

#include <stdbool.h>
#include <stddef.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_names.h"

/* Long enough for any line of ttrace_aux_write_names(); a test checks it. */
#define NAME_LINE_MAX 160

static const struct {
	uint32_t nr;
	const char *name;
} syscalls[] = {
#define SYSCALL(nr, name, nargs) {nr, #name},
#include "abi/syscalls.def"
#undef SYSCALL
};

/* The last header word: tag, len, cpu, flags, as struct ttrace_aux_record lays them out. */
static uint64_t tail_word(uint16_t tag, uint16_t len, uint8_t cpu, uint8_t flags)
{
	return tag | (uint64_t)len << 16 | (uint64_t)cpu << 32 | (uint64_t)flags << 40;
}

/* AW2: stores the record's words at pos. */
static void put_record(const struct ttrace_area *a, uint64_t pos, const struct ttrace_aux_item *it)
{
	uint64_t hdr[TTRACE_AUX_HDR_WORDS] = {
	    pos, it->ts, it->id, tail_word(it->tag, (uint16_t)it->len, it->cpu, TTRACE_AUX_VALID)};

	for (uint32_t i = 0; i < TTRACE_AUX_HDR_WORDS; i++) {
		/* release: pairs with the readers' acquire loads of record words (A2, A3) */
		__atomic_store_n(ttrace_aux_word(a, pos + 8 * i), hdr[i], __ATOMIC_RELEASE);
	}
	for (uint32_t off = 0; off < it->len; off += 8) {
		uint64_t w = 0;

		for (uint32_t b = 0; b < 8 && off + b < it->len; b++) {
			w |= (uint64_t)(uint8_t)it->str[off + b] << 8 * b;
		}
		/* release: as above */
		__atomic_store_n(ttrace_aux_word(a, pos + sizeof(struct ttrace_aux_record) + off),
				 w, __ATOMIC_RELEASE);
	}
}

static bool item_ok(const struct ttrace_aux_item *it)
{
	return it->tag && it->len <= TTRACE_AUX_LEN_MAX;
}

/*
 * The record at pos, whose tag word is w, back into an item whose string
 * is in buf; false if the string is too long for buf.
 */
static bool read_record(const struct ttrace_area *a, uint64_t pos, uint64_t w,
			struct ttrace_aux_item *it, char buf[TTRACE_AUX_KEEP_LEN_MAX])
{
	it->tag = (uint16_t)w;
	it->len = (uint16_t)(w >> 16);
	it->cpu = (uint8_t)(w >> 32);
	if (it->len > TTRACE_AUX_KEEP_LEN_MAX) {
		return false;
	}
	/* relaxed: the writer's own words, stored under the callers' lock */
	it->ts = __atomic_load_n(ttrace_aux_word(a, pos + offsetof(struct ttrace_aux_record, ts)),
				 __ATOMIC_RELAXED);
	it->id = __atomic_load_n(ttrace_aux_word(a, pos + offsetof(struct ttrace_aux_record, id)),
				 __ATOMIC_RELAXED);
	for (uint32_t off = 0; off < it->len; off += 8) {
		uint64_t sw = __atomic_load_n(
		    ttrace_aux_word(a, pos + sizeof(struct ttrace_aux_record) + off),
		    __ATOMIC_RELAXED);

		for (uint32_t b = 0; b < 8 && off + b < it->len; b++) {
			buf[off + b] = (char)(sw >> 8 * b);
		}
	}
	it->str = buf;
	return true;
}

int ttrace_aux_write(const struct ttrace_area *a, const struct ttrace_aux_item *it, uint64_t *ref)
{
	return ttrace_aux_write_keeping(a, it, NULL, ref);
}

int ttrace_aux_write_keeping(const struct ttrace_area *a, const struct ttrace_aux_item *it,
			     const struct ttrace_aux_keeper *k, uint64_t *ref)
{
	struct ttrace_header *h = a->hdr;

	if (!item_ok(it)) {
		return -EINVAL;
	}
	uint64_t size = TTRACE_AUX_RECORD_SIZE(it->len);
	/* relaxed: only this writer stores them, under the callers' lock */
	uint64_t first = __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED);
	uint64_t last = __atomic_load_n(&h->aux_last, __ATOMIC_RELAXED);
	uint64_t evicted = __atomic_load_n(&h->aux_evicted, __ATOMIC_RELAXED);
	uint64_t moved = 0; /* bytes moved by this call: at most one lap of the ring */

	while (last + size - first > h->aux_ring_size) { /* AW1 */
		/* relaxed: the writer's own record; its tag word holds len */
		uint64_t w = __atomic_load_n(
		    ttrace_aux_word(a, first + offsetof(struct ttrace_aux_record, tag)),
		    __ATOMIC_RELAXED);
		uint64_t from = first, rsize = TTRACE_AUX_RECORD_SIZE((uint16_t)(w >> 16));
		char buf[TTRACE_AUX_KEEP_LEN_MAX];
		struct ttrace_aux_item old;
		bool keep = k && moved + rsize <= h->aux_ring_size &&
			    read_record(a, from, w, &old, buf) && k->keep(k->ctx, from, old.tag);

		first += rsize;
		/*
		 * relaxed: put_record's release stores keep it before the words
		 * that overwrite the evicted record; pairs, through them, with
		 * the readers' reload of aux_first (A2, A3).
		 */
		__atomic_store_n(&h->aux_first, first, __ATOMIC_RELAXED);
		if (!keep) {
			evicted++;
			continue;
		}
		/*
		 * AW1's move: the record goes to the end under a new position,
		 * as any new record, copied from buf since the end may be the
		 * very bytes it held; the space it freed is the space it takes.
		 */
		put_record(a, last, &old);
		/* release: AW3, as below */
		__atomic_store_n(&h->aux_last, last + rsize, __ATOMIC_RELEASE);
		k->moved(k->ctx, from, last);
		last += rsize;
		moved += rsize;
	}
	/* relaxed: a counter for status lines */
	__atomic_store_n(&h->aux_evicted, evicted, __ATOMIC_RELAXED);
	put_record(a, last, it);
	/*
	 * release: pairs with the acquire loads of aux_last in
	 * ttrace_aux_snapshot() and ttrace_aux_lookup() (AW3)
	 */
	__atomic_store_n(&h->aux_last, last + size, __ATOMIC_RELEASE);
	*ref = last;
	return 0;
}

int ttrace_aux_write_durable(const struct ttrace_area *a, const struct ttrace_aux_item *it,
			     uint64_t *ref)
{
	struct ttrace_header *h = a->hdr;

	if (!item_ok(it)) {
		return -EINVAL;
	}
	uint64_t size = TTRACE_AUX_RECORD_SIZE(it->len);
	/* relaxed: only this writer stores it, under the callers' lock */
	uint64_t end = __atomic_load_n(&h->aux_durable_end, __ATOMIC_RELAXED);

	if (size > h->aux_durable_size - end) {
		return -ENOSPC;
	}
	put_record(a, end, it);
	/* release: pairs with the acquire loads of aux_durable_end (A1, A3) */
	__atomic_store_n(&h->aux_durable_end, end + size, __ATOMIC_RELEASE);
	*ref = end;
	return 0;
}

static uint32_t str_len(const char *s)
{
	uint32_t n = 0;

	while (s[n]) {
		n++;
	}
	return n;
}

/*
 * Walks the boot names, writing each as a durable record when a is not
 * NULL, and adds the bytes they take to *bytes. Returns 0, or the first
 * error of a write, or -EINVAL for a kind line longer than NAME_LINE_MAX.
 */
static int boot_names(const struct ttrace_area *a, uint64_t ts, uint64_t *bytes)
{
	char line[NAME_LINE_MAX];
	struct ttrace_aux_item it = {.ts = ts};
	uint64_t ref;
	int err;

	for (uint32_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++) {
		it.tag = TTRACE_AUX_SYSCALL;
		it.id = syscalls[i].nr;
		it.str = syscalls[i].name;
		it.len = str_len(it.str);
		*bytes += TTRACE_AUX_RECORD_SIZE(it.len);
		if (a && (err = ttrace_aux_write_durable(a, &it, &ref))) {
			return err;
		}
	}
	for (uint32_t kind = 0; kind < TTRACE_KIND_LIMIT; kind++) {
		const struct ttrace_kind_info *k = ttrace_kind_info(kind);

		if (!k) {
			continue;
		}
		int len = format_snprintf(
		    line, sizeof(line), "%s %s %s", k->name,
		    ttrace_category_name((uint32_t)__builtin_ctzll(k->category)), k->args);

		if (len >= (int)sizeof(line)) {
			return -EINVAL;
		}
		it.tag = TTRACE_AUX_KIND;
		it.id = kind;
		it.str = line;
		it.len = (uint32_t)len;
		*bytes += TTRACE_AUX_RECORD_SIZE(it.len);
		if (a && (err = ttrace_aux_write_durable(a, &it, &ref))) {
			return err;
		}
	}
	return 0;
}

uint64_t ttrace_aux_names_size(void)
{
	uint64_t bytes = 0;

	boot_names(NULL, 0, &bytes);
	return bytes;
}

int ttrace_aux_write_names(const struct ttrace_area *a, uint64_t ts)
{
	uint64_t bytes = 0;

	return boot_names(a, ts, &bytes);
}
