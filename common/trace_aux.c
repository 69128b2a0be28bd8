/*
 * trace_aux: the lock-free readers of the aux buffer (A1-A3 of
 * abi/trace.h); the writer they pair with (AW1-AW3) and the boot names
 * are in kernel/trace/aux_write.c. Records are 8-byte aligned and the
 * ring a power of two of at least a page, so a word never wraps: every
 * access is one whole 64-bit word, atomic, at ttrace_aux_word().
 */
#include "common/trace_aux.h"

#include <stdbool.h>
#include <stddef.h>

#include "abi/errno.h"

/* A snapshot the writer overtakes this often in a row is given up (-EAGAIN). */
#define SNAPSHOT_TRIES 16

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
			/* acquire: pairs with the writer's release stores of record words (AW2) */
			buf[(p - first) / 8] =
			    __atomic_load_n(ttrace_aux_word(a, p), __ATOMIC_ACQUIRE);
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
			*str = (const char *)(w + TTRACE_AUX_HDR_WORDS);
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
	uint64_t hdr[TTRACE_AUX_HDR_WORDS];
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
	for (uint32_t i = 0; i < TTRACE_AUX_HDR_WORDS; i++) {
		/* acquire: pairs with the writer's release stores of record words (AW2) */
		hdr[i] = __atomic_load_n(ttrace_aux_word(a, ref + 8 * i), __ATOMIC_ACQUIRE);
	}
	decode(hdr, rec);
	bool ok = record_ok(rec, ref, end);

	for (uint32_t off = 0; ok && off < rec->len && off < size - 1; off += 8) {
		/* acquire: as above */
		uint64_t w = __atomic_load_n(
		    ttrace_aux_word(a, ref + sizeof(struct ttrace_aux_record) + off),
		    __ATOMIC_ACQUIRE);

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

int ttrace_aux_walk(const struct ttrace_area *a,
		    bool (*fn)(void *ctx, const struct ttrace_aux_record *rec, uint64_t pos),
		    void *ctx)
{
	const struct ttrace_header *h = a->hdr;
	struct ttrace_aux_record rec;
	char none[1];
	/* acquire: pairs with the aux writer's release store of aux_last (AW3) */
	uint64_t last = __atomic_load_n(&h->aux_last, __ATOMIC_ACQUIRE);
	/* relaxed: the lookup checks every position it is given (A3) */
	uint64_t pos = __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED);

	while (pos < last) {
		int len = ttrace_aux_lookup(a, pos, &rec, none, sizeof(none));
		if (len == -ENOENT) {
			/* relaxed: first only grows, and the lookup saw it above pos */
			pos = __atomic_load_n(&h->aux_first, __ATOMIC_RELAXED);
			continue;
		}
		if (len < 0) {
			return len;
		}
		if (!fn(ctx, &rec, pos)) {
			break;
		}
		pos += TTRACE_AUX_RECORD_SIZE(rec.len);
	}
	return 0;
}
