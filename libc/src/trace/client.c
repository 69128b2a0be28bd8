/*
 * client: requests to traced and the pager over its dumps (trace_client.h).
 */
#include <errno.h>
#include <spoor.h>
#include <stdbool.h>
#include <string.h>
#include <trace_client.h>

#include "../internal.h"

/* Between sends of a request whose traced died: init restarts it within about 0.1 s. */
#define RESEND_DELAY_NS 10000000ull

static int traced_slot = -1;

void traced_use(int slot)
{
	traced_slot = slot;
}

static long slot_get(void)
{
	if (traced_slot < 0) {
		long slot = lookup(TRACED_NAME);
		if (slot < 0) {
			return slot;
		}
		traced_slot = (int)slot;
	}
	return traced_slot;
}

/*
 * One request: *cap goes in as the capability it carries, or IPC_NO_CAP,
 * and comes out as the one the reply carries, or IPC_NO_CAP.
 */
static long call(uint32_t op, uint64_t arg, const void *body, size_t len, void *reply,
		 size_t reply_max, uint64_t *result, uint32_t *cap)
{
	struct ipc_regs m = {.info = IPC_INFO(op, 2)};
	struct ipc_extra x = {
	    .timeout_ns = TRACED_TIMEOUT_NS,
	    .send_buf = (uint64_t)(uintptr_t)body,
	    .send_len = (uint32_t)len,
	    .send_cap = *cap,
	    .send_cap_rights = CAP_RIGHT_READ | CAP_RIGHT_WRITE,
	    .recv_buf = (uint64_t)(uintptr_t)reply,
	    .recv_max = reply ? (uint32_t)reply_max : 0,
	};

	*cap = IPC_NO_CAP;
	if (len > IPC_BUF_MAX || reply_max > IPC_BUF_MAX) {
		return -E2BIG;
	}
	long slot = slot_get();
	if (slot < 0) {
		return slot;
	}
	m.words[0] = TRACED_PROTOCOL;
	m.words[1] = arg;
	/*
	 * -EPIPE: traced died with the request in hand. init restarts it on
	 * the same endpoint, and every request is safe to send again (a
	 * dump's cursor is in the request), so it goes to the new one.
	 */
	uint64_t deadline = (uint64_t)sys_clock_ns() + TRACED_TIMEOUT_NS;
	long err = sys_ipc_call((int)slot, &m, &x);
	for (uint64_t now; err == -EPIPE && (now = (uint64_t)sys_clock_ns()) < deadline;) {
		sys_sleep_ns(RESEND_DELAY_NS);
		x.timeout_ns = deadline - now;
		err = sys_ipc_call((int)slot, &m, &x);
	}
	if (err) {
		return err;
	}
	*cap = x.recv_cap;
	if (result) {
		*result = m.words[1];
	}
	return (long)(int64_t)m.words[0];
}

long __libc_traced_stub(uint32_t op, uint64_t arg, const void *body, size_t len, uint32_t frame,
			void *reply, size_t reply_max, uint32_t *cap, uint64_t *result)
{
	uint32_t got = frame;
	long err = call(op, arg, body, len, reply, reply_max, result, &got);

	if (!err && cap && got == IPC_NO_CAP) {
		err = -EPROTO; /* an operation whose reply carries one always does */
	}
	if (got != IPC_NO_CAP && (err || !cap)) {
		sys_cap_delete((int)got);
	} else if (!err && cap) {
		*cap = got;
	}
	return err;
}

long traced_request(uint32_t op, uint64_t arg, const void *body, size_t len, void *reply,
		    size_t reply_max, uint64_t *result)
{
	return __libc_traced_stub(op, arg, body, len, IPC_NO_CAP, reply, reply_max, NULL, result);
}

void traced_pager_dump(struct traced_pager *p, uint32_t op, const struct traced_filter *f,
		       uint32_t format)
{
	memset(p, 0, sizeof(*p));
	p->op = op;
	p->req.dump.filter = *f;
	p->req.dump.format = format;
}

void traced_pager_pred(struct traced_pager *p, const struct traced_pred *pred)
{
	p->req.dump.pred = *pred;
}

long traced_pager_bulk(struct traced_pager *p, const struct traced_filter *f, size_t size)
{
	traced_pager_dump(p, TRACED_OP_BULK, f, TRACED_FORMAT_BINARY);
	long slot = sys_frame_create(size);
	if (slot < 0) {
		return slot;
	}
	/* Read-only here: the client never writes what traced gives it. */
	long window = sys_mem_map_frame((int)slot, NULL, PROT_READ);
	if (window < 0) {
		sys_cap_delete((int)slot);
		return window;
	}
	p->frame = (uint32_t)slot;
	p->window = (const uint8_t *)window;
	p->window_size = size;
	return 0;
}

void traced_pager_close(struct traced_pager *p)
{
	if (p->window) {
		sys_mem_unmap((void *)p->window, p->window_size);
		sys_cap_delete((int)p->frame);
		p->window = NULL;
	}
}

void traced_pager_strings(struct traced_pager *p, uint32_t tag)
{
	memset(p, 0, sizeof(*p));
	p->op = TRACED_OP_STRINGS;
	p->req.strings.tag = tag;
}

void traced_pager_events(struct traced_pager *p)
{
	traced_pager_strings(p, 0);
	p->op = TRACED_OP_EVENTS;
}

void traced_pager_stats(struct traced_pager *p, const struct traced_stats_request *r)
{
	memset(p, 0, sizeof(*p));
	p->op = TRACED_OP_STATS;
	p->req.stats = *r;
}

long traced_pager_next(struct traced_pager *p, const uint8_t **data, size_t *len, uint32_t *flags)
{
	bool strings = p->op == TRACED_OP_STRINGS || p->op == TRACED_OP_EVENTS;
	size_t size = strings			 ? sizeof(p->req.strings)
		      : p->op == TRACED_OP_STATS ? sizeof(p->req.stats)
						 : sizeof(p->req.dump);
	long err = __libc_traced_stub(p->op, 0, &p->req, size, p->window ? p->frame : IPC_NO_CAP,
				      p->reply.bytes, sizeof(p->reply.bytes), NULL, NULL);

	if (err) {
		return err;
	}
	const struct traced_dump_reply *h = &p->reply.head;
	if (h->len > (p->window ? p->window_size : sizeof(p->reply.bytes) - sizeof(*h))) {
		return -EINVAL; /* not a reply traced would send */
	}
	if (strings) {
		p->req.strings.cursor = h->cursor;
	} else if (p->op == TRACED_OP_STATS) {
		p->req.stats.cursor = h->cursor;
	} else {
		p->req.dump.cursor = h->cursor;
	}
	*data = p->window ? p->window : p->reply.bytes + sizeof(*h);
	*len = h->len;
	*flags = h->flags;
	return 0;
}
