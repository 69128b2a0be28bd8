/*
 * tracedfuzz [N]: sends traced N malformed requests (default 200) — wrong
 * protocol versions, unknown operations, bodies of the wrong size, bad
 * masks, modes, formats, filters and cursors, random bytes — and checks
 * and for the user-event operations, names that are missing, too long or
 * nobody's — and checks that each one is answered with its error, that
 * tracing's mask, mode and counters are what they were, and that traced
 * still answers a good request:
 *   tracedfuzz: 200 malformed requests refused, traced still answering
 * Then N predicate texts, valid, mutated and malformed, in every
 * operation that takes one (preds.h), each answered with a result or
 * -EINVAL and changing nothing of tracing:
 *   tracedfuzz: 200 predicates: A answered, R refused, traced still answering
 * For the first request that was not as it must be, what was sent and
 * got (exit 1). It needs the control level (`run -t tracedfuzz`).
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "preds.h"

#define DEFAULT_REQUESTS 200

static uint64_t seed = 0x2545f4914f6cdd1dull;
static struct traced_status status;

static uint64_t rng(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A dump request that traced would take: the base every malformed one spoils. */
static void good_dump(struct traced_dump_request *r)
{
	memset(r, 0, sizeof(*r));
	r->format = TRACED_FORMAT_TEXT;
}

/* A cursor as traced gives one out: from a real first page. */
static int real_cursor(struct traced_cursor *c)
{
	struct traced_pager p;
	const uint8_t *data;
	size_t len;
	uint32_t flags;
	struct traced_filter f = {.flags = TRACED_F_COUNT, .count = 1};

	traced_pager_dump(&p, TRACED_OP_DUMP, &f, TRACED_FORMAT_BINARY);
	long err = traced_pager_next(&p, &data, &len, &flags);
	*c = p.req.dump.cursor;
	return (int)err;
}

/* Spoils request r in way `how`; returns what it did, for the failure line. */
static const char *spoil_dump(struct traced_dump_request *r, uint32_t how,
			      const struct traced_cursor *real)
{
	struct traced_filter *f = &r->filter;
	struct traced_cursor *c = &r->cursor;

	switch (how) {
	case 0:
		r->format = 2 + (uint32_t)(rng() % 1000);
		return "an unknown format";
	case 1:
		r->reserved = (uint32_t)rng() | 1;
		return "a reserved field set";
	case 2:
		f->flags = TRACED_F_ALL + 1 + (uint32_t)(rng() % 1000) * 2;
		return "unknown filter flags";
	case 3:
		f->flags = TRACED_F_CATS;
		return "a category filter without categories";
	case 4:
		f->flags = TRACED_F_CATS;
		f->cats = 1ull << (TTRACE_CAT_BIT_PROF + 1 + rng() % (63 - TTRACE_CAT_BIT_PROF));
		return "an unknown category";
	case 5:
		f->flags = TRACED_F_CPUS;
		f->cpus = 1u << (status.num_cpus + rng() % (32 - status.num_cpus));
		return "a cpu that does not exist";
	case 6:
		f->flags = TRACED_F_KINDS;
		f->kinds[rng() % 2 ? 0 : 3] = rng() % 2 ? 1 : 1ull << 63;
		return "an unknown kind";
	case 7:
		f->flags = TRACED_F_SINCE | TRACED_F_UNTIL;
		f->since_ns = 1000 + rng() % 1000;
		f->until_ns = f->since_ns - rng() % 1000;
		return "an empty time window";
	case 8:
		f->flags = TRACED_F_COUNT;
		return "a count of 0";
	case 9:
		f->flags = TRACED_F_COUNT | TRACED_F_LAST;
		f->count = 1 + rng() % 10;
		return "both count and last";
	case 10:
		f->pid = 1 + (uint32_t)(rng() % 100);
		return "a pid without its flag";
	case 11:
		c->magic = (uint32_t)rng() | 1;
		return "a cursor with a wrong magic";
	case 12:
		c->events = 1 + rng() % 100;
		return "a new cursor that is not zeroed";
	case 13:
		*c = *real;
		c->ncpus = status.num_cpus + 1 + (uint32_t)(rng() % 7);
		return "a cursor for other cpus";
	case 14:
		*c = *real;
		c->next[rng() % status.num_cpus] = UINT64_MAX - rng() % 1000;
		return "a cursor beyond the head";
	case 15:
		*c = *real;
		c->end[rng() % status.num_cpus] += 1000000000 + rng() % 1000;
		return "a cursor ending beyond the head";
	case 16:
		*c = *real;
		c->synced |= 1u << (status.num_cpus + rng() % (32 - status.num_cpus));
		return "a cursor with synced bits of no cpu";
	case 17:
		*c = *real;
		c->flags = TRACED_CURSOR_FOLLOW;
		return "a follow cursor in a dump";
	case 18:
		*c = *real;
		c->skip = 1 + rng() % 100;
		return "a cursor skipping without last";
	case 19:
		f->flags = TRACED_F_KINDS | TRACED_F_CATS;
		f->kinds[0] = 1ull << TTRACE_KIND_mem_pf;
		f->cats = TTRACE_CAT(IPC);
		return "a kind outside the filter's categories";
	case 20:
		*c = *real;
		c->outside = c->lost + 1 + rng() % 100;
		return "a cursor with more losses told apart than lost";
	default:
		for (size_t i = 0; i < sizeof(*r); i++) {
			((uint8_t *)r)[i] = (uint8_t)rng();
		}
		return "random bytes";
	}
}

#define DUMP_SPOILS 22

struct attempt {
	uint32_t op;
	uint64_t word0; /* the protocol word */
	uint64_t arg;
	uint8_t body[IPC_BUF_MAX];
	size_t len;
	const char *what;
	long want; /* the error traced must give */
};

/* The i-th malformed request. */
static void make(struct attempt *a, uint32_t i, const struct traced_cursor *real)
{
	static const uint32_t unknown_ops[] = {0, TRACED_OP_LIMIT, 100, 0xffffffffu};
	static const uint32_t by_name[] = {TRACED_OP_UNREGISTER, TRACED_OP_EVENT_ON,
					   TRACED_OP_EVENT_OFF};
	struct traced_dump_request *d = (struct traced_dump_request *)a->body;

	memset(a, 0, sizeof(*a));
	a->word0 = TRACED_PROTOCOL;
	a->want = -EINVAL;
	switch (i % 16) {
	case 0:
		a->op = TRACED_OP_STATUS;
		a->word0 = rng() % 2 ? 0 : TRACED_PROTOCOL + 1 + rng() % 100;
		a->what = "another protocol version";
		a->want = -EPROTO;
		return;
	case 1:
		a->op = unknown_ops[rng() % 4];
		a->what = "an unknown operation";
		a->want = -ENOSYS;
		return;
	case 12:
		a->op = TRACED_OP_REGISTER;
		a->len = rng() % 2 ? 0 : 1 + rng() % 8;
		memset(a->body, a->len ? ' ' : 0, a->len);
		a->what = "a registration without a name";
		return;
	case 13:
		a->op = by_name[rng() % 3];
		a->len = rng() % 2 ? 0 : UEVENT_NAME_MAX + 1 + rng() % 100;
		memset(a->body, 'n', a->len);
		a->what = "no name, or one too long";
		return;
	case 14:
		a->op = by_name[rng() % 3];
		a->len = 8;
		memcpy(a->body, "nosuch_e", 8);
		a->what = "an event nobody registered";
		a->want = -ENOENT;
		return;
	case 15: {
		struct traced_strings_request *s = (struct traced_strings_request *)a->body;
		a->op = TRACED_OP_EVENTS;
		a->len = sizeof(*s);
		s->tag = rng() % 2 ? 1 + (uint32_t)(rng() % 10) : 0;
		s->cursor.magic = s->tag ? 0 : TRACED_CURSOR_MAGIC;
		s->cursor.ncpus = status.num_cpus;
		s->cursor.next[0] = s->tag ? 0 : UEVENT_MAX + 1 + rng() % 100;
		a->what = "an events listing with a tag or a cursor past the last event";
		return;
	}
	case 2:
		a->op = TRACED_OP_STATUS;
		a->len = 1 + rng() % 64;
		a->what = "a status request with a body";
		return;
	case 3:
		a->op = rng() % 2 ? TRACED_OP_ENABLE : TRACED_OP_DISABLE;
		a->arg = rng() % 2 ? 0 : 1ull << (8 + rng() % 56);
		a->what = "a bad category mask";
		return;
	case 4:
		a->op = TRACED_OP_MODE;
		a->arg = 2 + rng() % 1000;
		a->what = "an unknown mode";
		return;
	case 5:
		a->op = rng() % 2 ? TRACED_OP_DUMP : TRACED_OP_FOLLOW;
		a->len = rng() % 2 ? rng() % sizeof(*d) : sizeof(*d) + 1 + rng() % 64;
		a->what = "a dump request of the wrong size";
		return;
	case 6:
		a->op = TRACED_OP_FOLLOW;
		good_dump(d);
		d->filter.flags = TRACED_F_LAST;
		d->filter.count = 1 + rng() % 10;
		a->len = sizeof(*d);
		a->what = "a follow with last";
		return;
	case 7: {
		struct traced_strings_request *s = (struct traced_strings_request *)a->body;
		a->op = TRACED_OP_STRINGS;
		a->len = sizeof(*s);
		if (rng() % 2) {
			s->tag = 7 + (uint32_t)(rng() % 100);
			a->what = "strings of an unknown tag";
		} else {
			s->cursor.magic = TRACED_CURSOR_MAGIC;
			s->cursor.ncpus = status.num_cpus;
			s->cursor.next[0] = UINT64_MAX - rng() % 100;
			a->what = "strings from beyond the aux buffer";
		}
		return;
	}
	default:
		a->op = TRACED_OP_DUMP;
		good_dump(d);
		a->what = spoil_dump(d, (uint32_t)(rng() % DUMP_SPOILS), real);
		a->len = sizeof(*d);
		return;
	}
}

/* Sends a as is (its protocol word included); returns traced's answer. */
static long send(const struct attempt *a)
{
	static uint8_t reply[TRACED_REPLY_MAX];
	struct ipc_regs m = {.info = IPC_INFO(a->op, 2)};
	struct ipc_extra x = {
	    .timeout_ns = TRACED_TIMEOUT_NS,
	    .send_buf = (uint64_t)(uintptr_t)a->body,
	    .send_len = (uint32_t)a->len,
	    .send_cap = IPC_NO_CAP,
	    .recv_buf = (uint64_t)(uintptr_t)reply,
	    .recv_max = sizeof(reply),
	};
	static long slot = -1;

	if (slot < 0 && (slot = lookup(TRACED_NAME)) < 0) {
		return slot;
	}
	m.words[0] = a->word0;
	m.words[1] = a->arg;
	long err = sys_ipc_call((int)slot, &m, &x);
	return err ? err : (long)(int64_t)m.words[0];
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : DEFAULT_REQUESTS;
	struct traced_cursor real;
	static struct attempt a;

	long err = traced_call_status(&status);
	if (!err) {
		err = real_cursor(&real);
	}
	if (err) {
		printf("tracedfuzz: traced does not answer: %s\n", strerror((int)-err));
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct traced_status now;
		make(&a, i, &real);
		long got = send(&a);
		if (got != a.want) {
			printf("tracedfuzz: FAIL: request %u (%s, op %u) got %ld\n", i, a.what,
			       a.op, got);
			return 1;
		}
		err = traced_call_status(&now);
		/* With tracing off, not even a counter may move. */
		if (err || now.mask != status.mask || now.mode != status.mode ||
		    (!status.mask && memcmp(now.cpu, status.cpu, sizeof(now.cpu)))) {
			printf("tracedfuzz: FAIL: after request %u (%s): status %ld, mask %#llx "
			       "mode %u\n",
			       i, a.what, err, (unsigned long long)now.mask, now.mode);
			return 1;
		}
	}
	printf("tracedfuzz: %u malformed requests refused, traced still answering\n", n);
	struct preds_tally tally = {0};
	if (preds_fuzz(n, &status, &tally)) {
		return 1;
	}
	printf("tracedfuzz: %u predicates: %u answered, %u refused, traced still answering\n", n,
	       tally.answered, tally.refused);
	return 0;
}
