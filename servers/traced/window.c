/*
 * window: the export window's ring, produced by traced (window.h). The
 * ring's head is traced's alone and lives only in the window, so a
 * restarted traced goes on from the head the killed one published;
 * tail is the host's, read with acquire before its bytes are reused.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "abi/trace_file.h"
#include "servers/traced/window.h"

#define ALIGN	  TTRACE_EXPORT_ALIGN
#define WAIT_NS	  200000ull	 /* between looks at the host's tail */
#define ANSWER_NS 10000000000ull /* the host takes a ring's worth in far less */

static struct {
	struct ttrace_export_ctl *ctl;
	uint8_t *ring;
	uint64_t size;	   /* of the ring */
	uint8_t *private;  /* past the ring */
	uint64_t res_pos;  /* the reserved record's position (after any pad) */
	uint64_t res_head; /* the head when it was reserved */
} w;

static uint64_t align_up(uint64_t n)
{
	return (n + ALIGN - 1) / ALIGN * ALIGN;
}

int window_init(uint8_t *win, size_t size)
{
	if (size < TTRACE_EXPORT_CTL_SIZE + WINDOW_PRIVATE_SIZE + 4 * ALIGN) {
		return -ENOSPC;
	}
	uint64_t ring = (size - TTRACE_EXPORT_CTL_SIZE - WINDOW_PRIVATE_SIZE) / ALIGN * ALIGN;
	struct ttrace_export_ctl *c = (struct ttrace_export_ctl *)win;

	w.ctl = c;
	w.ring = win + TTRACE_EXPORT_CTL_SIZE;
	w.size = ring;
	w.private = w.ring + ring;
	if (c->magic == TTRACE_EXPORT_MAGIC && c->version == TTRACE_EXPORT_VERSION &&
	    c->ring_offset == TTRACE_EXPORT_CTL_SIZE && c->ring_size == ring &&
	    c->head % ALIGN == 0) {
		return 0; /* a killed traced's: its head stands */
	}
	memset(c, 0, sizeof(*c));
	c->version = TTRACE_EXPORT_VERSION;
	c->ring_offset = TTRACE_EXPORT_CTL_SIZE;
	c->ring_size = ring;
	/* release: the host checks the magic before it reads the rest (abi/trace_file.h) */
	__atomic_store_n(&c->magic, TTRACE_EXPORT_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

size_t window_record_max(void)
{
	return (size_t)(w.size / 2 / ALIGN * ALIGN - ALIGN);
}

uint8_t *window_private(void)
{
	return w.private;
}

/* -EIO or -ENOSPC when the host dropped the file in progress, else 0. */
static int refused(void)
{
	/* acquire: pairs with the host's release store of refused */
	uint32_t why = __atomic_load_n(&w.ctl->refused, __ATOMIC_ACQUIRE);

	return !why ? 0 : why == TTRACE_EXPORT_REFUSED_LIMIT ? -ENOSPC : -EIO;
}

int window_reserve(size_t len, uint32_t flags, uint8_t **at)
{
	uint64_t head = w.ctl->head, off = head % w.size;
	uint64_t need = sizeof(struct ttrace_export_rec) + align_up(len);
	/* A record never wraps: the ring's end is padded first when it does not fit (E1). */
	uint64_t pad = w.size - off < need ? w.size - off : 0;
	uint64_t deadline = 0;

	for (;;) {
		int err = refused();
		if (err) {
			return err;
		}
		/* acquire: pairs with the host's release store of tail (E6) */
		uint64_t tail = __atomic_load_n(&w.ctl->tail, __ATOMIC_ACQUIRE);
		if (head + pad + need - tail <= w.size) {
			break;
		}
		if (!(flags & WINDOW_WAIT)) {
			return -EAGAIN;
		}
		uint64_t now = (uint64_t)sys_clock_ns();
		deadline = deadline ? deadline : now + ANSWER_NS;
		if (now >= deadline) {
			return -EHOSTDOWN;
		}
		sys_sleep_ns(WAIT_NS);
	}
	w.res_head = head;
	w.res_pos = head + pad;
	*at = w.ring + w.res_pos % w.size + sizeof(struct ttrace_export_rec);
	return 0;
}

void window_publish(size_t len)
{
	uint64_t head = w.res_head;

	if (w.res_pos != head) {
		struct ttrace_export_rec p = {.magic = TTRACE_EXPORT_PAD, .pos = head};
		memcpy(w.ring + head % w.size, &p, sizeof(p));
	}
	struct ttrace_export_rec r = {
	    .magic = TTRACE_EXPORT_REC, .len = (uint32_t)len, .pos = w.res_pos};
	memcpy(w.ring + w.res_pos % w.size, &r, sizeof(r));
	/* release: the record's bytes before the head that shows them (E3, pairs with E4) */
	__atomic_store_n(&w.ctl->head, w.res_pos + sizeof(r) + align_up(len), __ATOMIC_RELEASE);
	w.res_head = w.res_pos = w.res_pos + sizeof(r) + align_up(len);
}
