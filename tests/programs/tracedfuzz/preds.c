/*
 * preds: predicate texts sent where traced takes one (preds.h). A text
 * comes from one of the ways below; the operation is the request's
 * number modulo the operations, so every way meets every operation. A
 * text that compiles gets a result (a page, a save, a filter or a
 * trigger, the last two removed at once); any other -EINVAL. Nothing
 * else is right: not another error, not a hang (the client's timeout),
 * not a restarted traced (the system test compares its pid).
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "preds.h"

#define SAVE_NAME  "fuzzpred"
#define FILTER_ON  "syscall if "
#define FILTER_OFF "syscall"
#define TRIGGER_ON TTRACE_KIND_syscall_exit
#define DEEP_MAX   24 /* parentheses of a too deep text: 9 and more are too deep */
#define EDITS_MAX  4  /* byte-wise edits of a mutated text */
#define LINE_MAX   (sizeof(FILTER_ON) + TTRACE_PRED_TEXT_MAX)

static uint64_t seed = 0x6a09e667f3bcc909ull;

static uint64_t rng(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Texts that compile for every kind (or for the kinds with the field). */
static const char *const corpus[] = {
    "result < 0",
    "pid == 1 && cpu != 7",
    "comm == \"memtest\" || tid > 3",
    "!(ctx == 0) && (pid < 100 || tid >= 2)",
    "result == -EINVAL",
    "nr == 7 || nr & 3",
    "comm != tracedfuzz",
};

/* Texts every check refuses, one fault each. */
static const char *const bad[] = {
    "rsult < 0",		   /* an unknown field */
    "comm < memtest",		   /* a string ordered */
    "pid == \"memtest\"",	   /* a string for a number */
    "cpu == 8",			   /* out of the field's range */
    "pid == 99999999999999999999", /* out of any range */
    "comm == \"memtest",	   /* an unterminated string */
    "pid == 1 &&",		   /* an unfinished expression */
    "result < -EBOGUS",		   /* a value that has no name */
    "pid === 1",		   /* no such operator */
    "",				   /* nothing: an empty FILTER's predicate, or none */
};

/* Bytes a mutation writes: the language's, and those it has no place for. */
static const char alphabet[] = "()!&|=<>\" 019az_-.\t\xff\x01";

/* Bytes of a text: len may claim more than text holds (too long), or hold a NUL. */
struct text {
	uint32_t len;
	uint32_t reserved;
	char text[TTRACE_PRED_TEXT_MAX];
	const char *how;
};

static void copy(struct text *t, const char *s)
{
	size_t n = strlen(s);

	t->len = (uint32_t)(n < sizeof(t->text) ? n : sizeof(t->text));
	memcpy(t->text, s, t->len);
}

/* A corpus text with up to EDITS_MAX bytes replaced, inserted or deleted. */
static void mutate(struct text *t)
{
	copy(t, corpus[rng() % (sizeof(corpus) / sizeof(corpus[0]))]);
	for (uint32_t k = 1 + (uint32_t)(rng() % EDITS_MAX); k; k--) {
		uint32_t at = t->len ? (uint32_t)(rng() % t->len) : 0;
		char c = alphabet[rng() % (sizeof(alphabet) - 1)];
		switch (rng() % 3) {
		case 0:
			if (t->len) {
				t->text[at] = c;
			}
			break;
		case 1:
			if (t->len < sizeof(t->text)) {
				memmove(t->text + at + 1, t->text + at, t->len - at);
				t->text[at] = c;
				t->len++;
			}
			break;
		default:
			if (t->len) {
				memmove(t->text + at, t->text + at + 1, t->len - at - 1);
				t->len--;
			}
			break;
		}
	}
}

/* The i-th text: one of the ways a text comes. */
static void make(struct text *t, uint32_t i)
{
	memset(t, 0, sizeof(*t));
	switch (i % 9) {
	case 0:
		copy(t, corpus[rng() % (sizeof(corpus) / sizeof(corpus[0]))]);
		t->how = "a valid text";
		return;
	case 1:
	case 2:
		mutate(t);
		t->how = "a mutated text";
		return;
	case 3:
		copy(t, bad[rng() % (sizeof(bad) / sizeof(bad[0]))]);
		t->how = "a text every check refuses";
		return;
	case 4: {
		/*
		 * Terms to the brim (more than a program's instructions hold),
		 * or a length past the text: more than a predicate may be.
		 */
		for (t->len = 0; t->len + 12 <= sizeof(t->text); t->len += 12) {
			memcpy(t->text + t->len, "pid == 1 || ", 12);
		}
		_Static_assert(TTRACE_PRED_TEXT_MAX % 12 == 8, "the last term fills the text");
		memcpy(t->text + t->len, "pid == 1", sizeof(t->text) - t->len);
		t->len = rng() % 2 ? TTRACE_PRED_TEXT_MAX + 1 + (uint32_t)(rng() % 1000)
				   : TTRACE_PRED_TEXT_MAX;
		t->how = "a text too long";
		return;
	}
	case 5: {
		uint32_t deep = 9 + (uint32_t)(rng() % (DEEP_MAX - 8));
		memset(t->text, '(', deep);
		memcpy(t->text + deep, "pid == 1", 8);
		memset(t->text + deep + 8, ')', deep);
		t->len = 2 * deep + 8;
		t->how = "a text too deep";
		return;
	}
	case 6:
		copy(t, corpus[rng() % (sizeof(corpus) / sizeof(corpus[0]))]);
		t->text[rng() % t->len] = '\0';
		t->how = "a NUL byte inside";
		return;
	case 7:
		copy(t, corpus[0]);
		t->reserved = 1 + (uint32_t)(rng() % 1000);
		t->how = "a reserved word set";
		return;
	default:
		t->len = (uint32_t)(rng() % sizeof(t->text));
		for (uint32_t k = 0; k < t->len; k++) {
			t->text[k] = (char)rng();
		}
		t->how = "random bytes";
		return;
	}
}

/* The request's predicate as the protocol carries it. */
static void pred_of(const struct text *t, struct traced_pred *p)
{
	p->len = t->len;
	p->reserved = t->reserved;
	memcpy(p->text, t->text, sizeof(p->text));
}

static long request(uint32_t op, const void *body, size_t len)
{
	static uint8_t reply[TRACED_REPLY_MAX];

	return traced_request(op, 0, body, len, reply, sizeof(reply), NULL);
}

/*
 * FILTER's body, "syscall if TEXT", or none (-1) for a text that its line
 * cannot carry (a NUL, a reserved word, more than the text holds): those
 * only the structured requests can send.
 */
static long filter(const struct text *t)
{
	char line[LINE_MAX];
	size_t n = sizeof(FILTER_ON) - 1;

	if (t->reserved || t->len > sizeof(t->text) || memchr(t->text, '\0', t->len)) {
		return -1;
	}
	memcpy(line, FILTER_ON, n);
	memcpy(line + n, t->text, t->len);
	long err = request(TRACED_OP_FILTER, line, n + t->len);
	if (!err) {
		err = request(TRACED_OP_FILTER, FILTER_OFF, sizeof(FILTER_OFF) - 1);
		return err ? 1 : 0; /* the removal must be taken */
	}
	return err;
}

static long trigger(const struct text *t)
{
	static struct traced_trigger_request r;

	if (t->reserved) {
		return -1;
	}
	r = (struct traced_trigger_request){
	    .kind = TRIGGER_ON, .action = TTRACE_TRIG_COUNT, .len = t->len};
	memcpy(r.text, t->text, sizeof(r.text));
	long err = request(TRACED_OP_TRIGGER, &r, sizeof(r));
	if (!err) {
		r = (struct traced_trigger_request){.kind = TRIGGER_ON, .action = TTRACE_TRIG_NONE};
		err = request(TRACED_OP_TRIGGER, &r, sizeof(r));
		return err ? 1 : 0;
	}
	return err;
}

/* Operations by number: each sends t and returns traced's answer, or -1 when it cannot. */
static long send(uint32_t op, const struct text *t, const char **what)
{
	static struct traced_dump_request d;
	static struct traced_stats_request s;
	static struct traced_save_request v;

	memset(&d, 0, sizeof(d));
	memset(&s, 0, sizeof(s));
	memset(&v, 0, sizeof(v));
	switch (op) {
	case 0:
	case 1:
		*what = op ? "a binary dump" : "a dump";
		d.format = op ? TRACED_FORMAT_BINARY : TRACED_FORMAT_TEXT;
		pred_of(t, &d.pred);
		return request(TRACED_OP_DUMP, &d, sizeof(d));
	case 2:
		*what = "a follow's first page";
		pred_of(t, &d.pred);
		return request(TRACED_OP_FOLLOW, &d, sizeof(d));
	case 3:
	case 4:
		*what = op == 3 ? "stats" : "a histogram";
		s.form = op == 3 ? TRACED_STATS_KV : TRACED_STATS_HIST;
		s.measure = op == 3 ? 0 : TRACED_MEASURE_SYSCALL;
		s.key = op == 3 ? 0 : TRACED_STATS_ANY;
		pred_of(t, &s.pred);
		return request(TRACED_OP_STATS, &s, sizeof(s));
	case 5:
		/* one event at most: a save's cost is its aux records, not its events */
		*what = "a save";
		v.filter = (struct traced_filter){.flags = TRACED_F_COUNT, .count = 1};
		memcpy(v.name, SAVE_NAME, sizeof(SAVE_NAME));
		pred_of(t, &v.pred);
		return request(TRACED_OP_SAVE, &v, sizeof(v));
	case 6:
		*what = "trace on ... if";
		return filter(t);
	default:
		*what = "a trigger";
		return trigger(t);
	}
}

#define OPS 8

/* Whether tracing is as before: its mask, mode and filters, and with tracing off its ledger. */
static bool unchanged(const struct traced_status *before, const struct traced_status *now)
{
	return now->mask == before->mask && now->mode == before->mode &&
	       now->filter_kinds == before->filter_kinds &&
	       (before->mask || (!memcmp(now->cpu, before->cpu, sizeof(now->cpu)) &&
				 !memcmp(now->filtered, before->filtered, sizeof(now->filtered))));
}

int preds_fuzz(uint32_t n, const struct traced_status *before, struct preds_tally *tally)
{
	static struct text t;

	for (uint32_t i = 0; i < n; i++) {
		struct traced_status now;
		const char *what = "";
		make(&t, i / OPS);
		long got = send(i % OPS, &t, &what);
		if (got == -1) {
			continue; /* a text this operation's request cannot carry */
		}
		if (got && got != -EINVAL) {
			printf("tracedfuzz: FAIL: predicate %u (%s in %s, %u bytes) got %ld\n", i,
			       t.how, what, t.len, got);
			return -1;
		}
		*(got ? &tally->refused : &tally->answered) += 1;
		long err = traced_call_status(&now);
		if (err || !unchanged(before, &now)) {
			printf("tracedfuzz: FAIL: after predicate %u (%s in %s): status %ld, mask "
			       "%#llx mode %u filters %#llx\n",
			       i, t.how, what, err, (unsigned long long)now.mask, now.mode,
			       (unsigned long long)now.filter_kinds);
			return -1;
		}
	}
	return 0;
}
