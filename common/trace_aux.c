/*
 * trace_aux: the aux writer (AW1-AW3 of abi/trace.h), the boot names of
 * the durable part, and the lock-free readers (A1-A3). Records are 8-byte
 * aligned and the ring a power of two of at least a page, so a word never
 * wraps: every access is one whole 64-bit word, atomic, at word_at().
 */
#include "common/trace_aux.h"

#include <stdbool.h>
#include <stddef.h>

#include "abi/errno.h"
#include "common/format.h"
#include "common/trace_names.h"

#define HDR_WORDS (sizeof(struct ttrace_aux_record) / 8)

/* A snapshot the writer overtakes this often in a row is given up (-EAGAIN). */
#define SNAPSHOT_TRIES 16

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

/* The word holding position pos (8-byte aligned) of the aux region. */
static uint64_t *word_at(const struct ttrace_area *a, uint64_t pos)
{
	const struct ttrace_header *h = a->hdr;
	uint64_t d = h->aux_durable_size;

	return &a->aux[(pos < d ? pos : d + ((pos - d) & h->aux_mask)) / 8];
}

/* The last header word: tag, len, cpu, flags, as struct ttrace_aux_record lays them out. */
static uint64_t tail_word(uint16_t tag, uint16_t len, uint8_t cpu, uint8_t flags)
{
	return tag | (uint64_t)len << 16 | (uint64_t)cpu << 32 | (uint64_t)flags << 40;
}

static void decode(const uint64_t *w, struct ttrace_aux_record *rec)
{
	rec->pos = w[0];
	rec->ts = w[1];
	rec->id = w[2];
	rec->tag = (uint16_t)w[3];
	rec->len = (uint16_t)(w[3] >> 16);
	rec->cpu = (uint8_t)(w[3] >> 32);
	rec->flags = (uint8_t)(w[3] >> 40);
	rec->reserved = (uint16_t)(w[3] >> 48);
}

/* True if rec, found at pos with end - pos bytes after it, is a whole record. */
static bool record_ok(const struct ttrace_aux_record *rec, uint64_t pos, uint64_t end)
{
	return (rec->flags & TTRACE_AUX_VALID) && rec->pos == pos && rec->tag &&
	       rec->len <= TTRACE_AUX_LEN_MAX && TTRACE_AUX_RECORD_SIZE(rec->len) <= end - pos;
}

/* AW2: stores the record's words at pos. */
static void put_record(const struct ttrace_area *a, uint64_t pos, const struct ttrace_aux_item *it)
{
	uint64_t hdr[HDR_WORDS] = {
	    pos, it->ts, it->id, tail_word(it->tag, (uint16_t)it->len, it->cpu, TTRACE_AUX_VALID)};

	for (uint32_t i = 0; i < HDR_WORDS; i++) {
		/* release: pairs with the readers' acquire loads of record words (A2, A3) */
		__atomic_store_n(word_at(a, pos + 8 * i), hdr[i], __ATOMIC_RELEASE);
	}
	for (uint32_t off = 0; off < it->len; off += 8) {
		uint64_t w = 0;

		for (uint32_t b = 0; b < 8 && off + b < it->len; b++) {
			w |= (uint64_t)(uint8_t)it->str[off + b] << 8 * b;
		}
		/* release: as above */
		__atomic_store_n(word_at(a, pos + sizeof(struct ttrace_aux_record) + off), w,
				 __ATOMIC_RELEASE);
	}
}

static bool item_ok(const struct ttrace_aux_item *it)
{
	return it->tag && it->len <= TTRACE_AUX_LEN_MAX;
}

int ttrace_aux_write(const struct ttrace_area *a, const struct ttrace_aux_item *it, uint64_t *ref)
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

	while (last + size - first > h->aux_ring_size) { /* AW1 */
		/* relaxed: the writer's own record; its tag word holds len */
		uint64_t w = __atomic_load_n(
		    word_at(a, first + offsetof(struct ttrace_aux_record, tag)), __ATOMIC_RELAXED);

		first += TTRACE_AUX_RECORD_SIZE((uint16_t)(w >> 16));
		evicted++;
		/*
		 * relaxed: put_record's release stores keep it before the words
		 * that overwrite the evicted record; pairs, through them, with
		 * the readers' reload of aux_first (A2, A3).
		 */
		__atomic_store_n(&h->aux_first, first, __ATOMIC_RELAXED);
	}
	/* relaxed: a counter for status lines */
	__atomic_store_n(&h->aux_evicted, evicted, __ATOMIC_RELAXED);
	put_record(a, last, it);
	/* release: pairs with the acquire load of aux_last in snapshot and lookup (AW3) */
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

void ttrace_aux_durable(const struct ttrace_area *a, struct ttrace_aux_view *v)
{
	/* acquire: pairs with the release store in ttrace_aux_write_durable() (A1) */
	uint64_t end = __atomic_load_n(&a->hdr->aux_durable_end, __ATOMIC_ACQUIRE);

	*v = (struct ttrace_aux_view){.words = a->aux, .start = 0, .next = 0, .end = end};
}

int ttrace_aux_snapshot(const struct ttrace_area *a, uint64_t *buf, size_t buf_size,
			struct ttrace_aux_view *v)
{
	const struct ttrace_header *h = a->hdr;

	if (buf_size < h->aux_ring_size) {
		return -ENOSPC;
	}
	for (int tries = 0; tries < SNAPSHOT_TRIES; tries++) {
		/* acquire: pairs with the release store of aux_last in ttrace_aux_write() (A2) */
		uint64_t last = __atomic_load_n(&h->aux_last, __ATOMIC_ACQUIRE);
		/* relaxed: validated by the reload below */
		uint64_t first = __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED);

		if (first > last || last - first > h->aux_ring_size) {
			continue; /* the writer moved on between the two loads */
		}
		for (uint64_t p = first; p < last; p += 8) {
			/* acquire: pairs with put_record's release stores (AW2) */
			buf[(p - first) / 8] = __atomic_load_n(word_at(a, p), __ATOMIC_ACQUIRE);
		}
		/* relaxed: the acquire loads of the copy keep this load after them */
		uint64_t first2 = __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED);

		if (first2 > last || (first2 == last && first != last)) {
			continue; /* everything copied was evicted meanwhile */
		}
		*v = (struct ttrace_aux_view){.words = buf,
					      .start = first,
					      .next = first2 > first ? first2 : first,
					      .end = last};
		return 0;
	}
	return -EAGAIN;
}

int ttrace_aux_next(struct ttrace_aux_view *v, struct ttrace_aux_record *rec, const char **str)
{
	const uint64_t *w = v->words + (v->next - v->start) / 8;

	if (v->next >= v->end) {
		return 0;
	}
	if (v->end - v->next >= sizeof(struct ttrace_aux_record)) {
		decode(w, rec);
		if (record_ok(rec, v->next, v->end)) {
			*str = (const char *)(w + HDR_WORDS);
			v->next += TTRACE_AUX_RECORD_SIZE(rec->len);
			return 1;
		}
	}
	v->next = v->end; /* nothing after bytes that are not a record can be trusted */
	return -EINVAL;
}

int ttrace_aux_lookup(const struct ttrace_area *a, uint64_t ref, struct ttrace_aux_record *rec,
		      char *str, size_t size)
{
	const struct ttrace_header *h = a->hdr;
	bool durable = ref < h->aux_durable_size;
	uint64_t hdr[HDR_WORDS];
	uint64_t end;

	str[0] = '\0';
	if (durable) {
		/* acquire: pairs with the release store in ttrace_aux_write_durable() (A1) */
		end = __atomic_load_n(&h->aux_durable_end, __ATOMIC_ACQUIRE);
	} else {
		/* acquire: pairs with the release store of aux_last in ttrace_aux_write() (A3) */
		end = __atomic_load_n(&h->aux_last, __ATOMIC_ACQUIRE);
		/* relaxed: validated by the reload below */
		if (ref < __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED)) {
			return -ENOENT;
		}
	}
	if (ref % 8 || ref >= end || end - ref < sizeof(struct ttrace_aux_record)) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < HDR_WORDS; i++) {
		/* acquire: pairs with put_record's release stores (AW2) */
		hdr[i] = __atomic_load_n(word_at(a, ref + 8 * i), __ATOMIC_ACQUIRE);
	}
	decode(hdr, rec);
	bool ok = record_ok(rec, ref, end);

	for (uint32_t off = 0; ok && off < rec->len && off < size - 1; off += 8) {
		/* acquire: as above */
		uint64_t w = __atomic_load_n(
		    word_at(a, ref + sizeof(struct ttrace_aux_record) + off), __ATOMIC_ACQUIRE);

		for (uint32_t b = 0; b < 8 && off + b < rec->len && off + b < size - 1; b++) {
			str[off + b] = (char)(w >> 8 * b);
		}
	}
	/* relaxed: the acquire loads above keep this load after them (A3) */
	if (!durable && ref < __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED)) {
		str[0] = '\0';
		return -ENOENT;
	}
	if (!ok) {
		return -EINVAL;
	}
	str[rec->len < size - 1 ? rec->len : size - 1] = '\0';
	return rec->len;
}
