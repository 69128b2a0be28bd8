/*
 * stats: STATS (abi/traced.h): counts and latencies over the events a
 * DUMP with the same filter returns. The events come from the dump's own
 * merge (dump_fill, binary) a piece at a time and are folded into fixed
 * tables as they pass, so the memory used is the same whatever the
 * window: ROWS rows of at most TRACED_STATS_VALUES distinct values, and
 * TRACED_STATS_THREADS pending halves. The text of the answer is made
 * whole on the first page and kept for the pages after it; a page whose
 * request is not the kept answer's (traced restarted, another client
 * asked meanwhile) makes it again, from the rings as they are then.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/format.h"
#include "common/trace_names.h"
#include "traced.h"

#define ROWS	    128	  /* measure rows: syscalls, endpoints x paths, outcomes, cpus */
#define BUCKETS	    64	  /* log2 buckets of microseconds */
#define PIECE	    65536 /* bytes of merged events folded at a time */
#define TEXT_MAX    32768 /* the answer's text */
#define BAR_WIDTH   52	  /* a histogram bar at its longest, as bpftrace draws it */
#define STALLS_MAX  1000  /* yields to wait out one write in progress */
#define NO_TID	    0	  /* a pending slot that holds nothing */
#define UNKNOWN	    (TRACED_STATS_ANY - 1) /* a row key only the missing half would tell */
#define US_PER_S    1000000ull
#define PERCENTILES 3

static const uint32_t percentile[PERCENTILES] = {50, 90, 99};

/* One row: the latencies of one measure and key. */
struct row {
	uint32_t measure; /* TRACED_MEASURE_*; 0: unused */
	uint64_t key;	  /* syscall number, endpoint, outcome or cpu */
	uint32_t path;	  /* ipc: TRACED_PATH_FAST or _SLOW */
	uint64_t count, unpaired;
	uint64_t min, max;
	bool approx; /* more distinct values than value[] holds */
	uint32_t nvalues;
	struct {
		uint64_t us;
		uint64_t n;
	} value[TRACED_STATS_VALUES]; /* sorted by us */
	uint64_t bucket[BUCKETS];
};

/* A first half waiting for its second: one per thread and measure. */
struct pending {
	uint32_t tid; /* NO_TID: free */
	uint32_t measure;
	uint64_t us;
	uint64_t key;  /* the row the pair will go to */
	uint32_t path; /* ipc: fast once the caller's fastpath is seen */
};

static struct stats {
	uint64_t events, lost;
	uint64_t kinds[TTRACE_KIND_LIMIT];
	struct row row[ROWS];
	struct pending pending[TRACED_STATS_THREADS];
} st;

/* The answer kept for its next pages, and the request it answers. */
static struct {
	bool valid;
	struct traced_stats_request req; /* with the cursor the first page was given */
	char text[TEXT_MAX];
	size_t len;
} kept;

/* A time as a dump prints it, in whole microseconds since boot. */
static uint64_t us_of(uint64_t ts)
{
	const struct ttrace_header *h = traced.area.hdr;
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;

	if (!h->tsc_hz) {
		return d;
	}
	return d / h->tsc_hz * US_PER_S + d % h->tsc_hz * US_PER_S / h->tsc_hz;
}

static struct row *row_of(uint32_t measure, uint64_t key, uint32_t path)
{
	for (uint32_t i = 0; i < ROWS; i++) {
		struct row *r = &st.row[i];
		if (!r->measure) {
			memset(r, 0, sizeof(*r));
			r->measure = measure;
			r->key = key;
			r->path = path;
			r->min = UINT64_MAX;
			return r;
		}
		if (r->measure == measure && r->key == key && r->path == path) {
			return r;
		}
	}
	return NULL; /* more rows than ROWS: not counted, and said so by no row at all */
}

static uint32_t bucket_of(uint64_t us)
{
	return us ? (uint32_t)(64 - __builtin_clzll(us)) : 0;
}

static void add_latency(struct row *r, uint64_t us)
{
	uint32_t i = 0;

	r->count++;
	r->min = us < r->min ? us : r->min;
	r->max = us > r->max ? us : r->max;
	r->bucket[bucket_of(us) < BUCKETS ? bucket_of(us) : BUCKETS - 1]++;
	while (i < r->nvalues && r->value[i].us < us) {
		i++;
	}
	if (i < r->nvalues && r->value[i].us == us) {
		r->value[i].n++;
	} else if (r->nvalues < TRACED_STATS_VALUES) {
		memmove(&r->value[i + 1], &r->value[i], (r->nvalues - i) * sizeof(r->value[0]));
		r->value[i].us = us;
		r->value[i].n = 1;
		r->nvalues++;
	} else {
		r->approx = true;
	}
}

static void add_unpaired(uint32_t measure, uint64_t key, uint32_t path)
{
	struct row *r = row_of(measure, key, path);

	if (r) {
		r->unpaired++;
	}
}

static struct pending *pending_of(uint32_t tid, uint32_t measure)
{
	for (uint32_t i = 0; i < TRACED_STATS_THREADS; i++) {
		if (st.pending[i].tid == tid && st.pending[i].measure == measure) {
			return &st.pending[i];
		}
	}
	return NULL;
}

/* Waits for the second half; a first half that finds no room is unpaired at once. */
static void begin(uint32_t tid, uint32_t measure, uint64_t us, uint64_t key)
{
	struct pending *p = pending_of(tid, measure);

	if (p) {
		add_unpaired(measure, p->key, p->path); /* its second half never came */
	} else {
		p = pending_of(NO_TID, 0);
	}
	if (!p) {
		add_unpaired(measure, key, TRACED_PATH_SLOW * (measure == TRACED_MEASURE_IPC));
		return;
	}
	*p = (struct pending){.tid = tid,
			      .measure = measure,
			      .us = us,
			      .key = key,
			      .path = measure == TRACED_MEASURE_IPC ? TRACED_PATH_SLOW
								    : TRACED_PATH_ANY};
}

/*
 * The second half: pairs with tid's first, in the row key gives (or the
 * first half's when key is NULL). Unpaired when there is no first half,
 * or time went backwards between them.
 */
static void end(uint32_t tid, uint32_t measure, uint64_t us, const uint64_t *key)
{
	struct pending *p = pending_of(tid, measure);

	if (!p) {
		add_unpaired(measure, key ? *key : UNKNOWN,
			     key ? TRACED_PATH_SLOW * (measure == TRACED_MEASURE_IPC)
				 : TRACED_PATH_ANY);
		return;
	}
	uint64_t k = key ? *key : p->key;
	struct row *r = row_of(measure, k, p->path);
	if (r && us >= p->us) {
		add_latency(r, us - p->us);
	} else if (r) {
		r->unpaired += 2;
	}
	p->tid = NO_TID;
	p->measure = 0;
}

/* A loss may have taken any second half: every pending first half is unpaired. */
static void flush_pending(void)
{
	for (uint32_t i = 0; i < TRACED_STATS_THREADS; i++) {
		struct pending *p = &st.pending[i];
		if (p->tid != NO_TID) {
			add_unpaired(p->measure, p->key, p->path);
			p->tid = NO_TID;
			p->measure = 0;
		}
	}
}

static void fold(const struct ttrace_entry *e)
{
	uint64_t us = us_of(e->ts);
	uint64_t cpu = e->cpu;

	st.events++;
	if (e->kind < TTRACE_KIND_LIMIT) {
		st.kinds[e->kind]++;
	}
	switch (e->kind) {
	case TTRACE_KIND_syscall_entry:
		begin(e->tid, TRACED_MEASURE_SYSCALL, us, e->data[0]);
		break;
	case TTRACE_KIND_syscall_exit:
		end(e->tid, TRACED_MEASURE_SYSCALL, us, &e->data[0]);
		break;
	case TTRACE_KIND_ipc_call:
		begin(e->tid, TRACED_MEASURE_IPC, us, e->data[0]);
		break;
	case TTRACE_KIND_ipc_fastpath: {
		struct pending *p = pending_of(e->tid, TRACED_MEASURE_IPC);
		if (p) {
			p->path = TRACED_PATH_FAST;
		}
		break;
	}
	case TTRACE_KIND_ipc_reply:
		/* A reply names the caller it wakes (peer); its endpoint is the call's. */
		end((uint32_t)e->data[2], TRACED_MEASURE_IPC, us, NULL);
		break;
	case TTRACE_KIND_mem_pf_entry:
		begin(e->tid, TRACED_MEASURE_PF, us, UNKNOWN); /* the outcome comes with mem_pf */
		break;
	case TTRACE_KIND_mem_pf:
		end(e->tid, TRACED_MEASURE_PF, us, &e->data[3]);
		break;
	case TTRACE_KIND_sched_wakeup:
		if (!pending_of((uint32_t)e->data[0], TRACED_MEASURE_WAKEUP)) {
			/* the CPU is the one that runs it: known at the switch */
			begin((uint32_t)e->data[0], TRACED_MEASURE_WAKEUP, us, UNKNOWN);
		}
		break;
	case TTRACE_KIND_sched_switch:
		/* Not every switch follows a wakeup: only one that does is a pair. */
		if (pending_of((uint32_t)e->data[2], TRACED_MEASURE_WAKEUP)) {
			end((uint32_t)e->data[2], TRACED_MEASURE_WAKEUP, us, &cpu);
		}
		break;
	default:
		break;
	}
}

/* Folds a piece of a binary dump: events and loss markers. */
static void fold_piece(const uint8_t *data, size_t len)
{
	const union ttrace_slot *s = (const union ttrace_slot *)data;

	for (size_t i = 0; i < len / sizeof(*s);) {
		const struct ttrace_entry *e = &s[i].e;
		if (e->kind == TRACED_KIND_LOST && !e->ts) {
			st.lost += e->data[0];
			flush_pending();
			i++;
			continue;
		}
		fold(e);
		i += 1 + TTRACE_NCONT_OF(e->ctx);
	}
}

/* Runs the window through the tables. 0, or -EBUSY if a write never finished. */
static int compute(const struct traced_stats_request *r, const struct scope *scope)
{
	static uint8_t piece_buf[PIECE];
	struct traced_cursor c = {0};
	bool done = false;

	memset(&st, 0, sizeof(st));
	for (uint32_t stalls = 0; !done;) {
		struct dump_piece piece = {
		    .out = piece_buf, .max = sizeof(piece_buf), .scope = scope};
		done = dump_fill(TRACED_OP_DUMP, &r->filter, &c, TRACED_FORMAT_BINARY, &piece);
		if (!piece.len && !done) {
			if (++stalls > STALLS_MAX) {
				return -EBUSY;
			}
			sys_yield();
			continue;
		}
		stalls = 0;
		fold_piece(piece_buf, piece.len);
	}
	flush_pending(); /* first halves the window ends before their second */
	return 0;
}

/* The answer as it is made: text cut at TEXT_MAX (the rows are bounded well below). */
static struct format_buf out;

#define line(...) format_buf_printf(&out, __VA_ARGS__)

/* The value at nearest rank p of row r (exact while it kept every value). */
static uint64_t rank_value(const struct row *r, uint32_t p)
{
	uint64_t rank = (p * r->count + 99) / 100;
	uint64_t seen = 0;

	if (!r->approx) {
		for (uint32_t i = 0; i < r->nvalues; i++) {
			seen += r->value[i].n;
			if (seen >= rank) {
				return r->value[i].us;
			}
		}
	}
	for (uint32_t b = 0; b < BUCKETS; b++) {
		seen += r->bucket[b];
		if (seen >= rank) {
			return b ? 1ull << (b - 1) : 0;
		}
	}
	return r->max;
}

/* A row's key as text: a syscall's name, an endpoint and path, an outcome, a cpu. */
static void key_text(const struct row *r, char *buf, size_t size)
{
	size_t len;
	const char *name;

	if (r->key == UNKNOWN && r->measure == TRACED_MEASURE_IPC) {
		format_snprintf(buf, size, "? path=%s", traced_path_name(r->path));
	} else if (r->key == UNKNOWN) {
		format_snprintf(buf, size, "?");
	} else if (r->measure == TRACED_MEASURE_SYSCALL &&
		   (name = ttrace_decoder_syscall(&traced.decoder, r->key, &len))) {
		format_snprintf(buf, size, "%.*s", (int)len, name);
	} else if (r->measure == TRACED_MEASURE_IPC) {
		format_snprintf(buf, size, "%llu path=%s", (unsigned long long)r->key,
				traced_path_name(r->path));
	} else if (r->measure == TRACED_MEASURE_PF) {
		format_snprintf(buf, size, "%s", traced_outcome_name(r->key));
	} else {
		format_snprintf(buf, size, "%llu", (unsigned long long)r->key);
	}
}

static void print_row(const struct row *r, bool kv)
{
	char key[96];
	uint64_t p[PERCENTILES];

	key_text(r, key, sizeof(key));
	for (int i = 0; i < PERCENTILES; i++) {
		p[i] = r->count ? rank_value(r, percentile[i]) : 0;
	}
	uint64_t min = r->count ? r->min : 0, max = r->count ? r->max : 0;
	if (kv) {
		line("measure=%s %s=%s count=%llu unpaired=%llu min_us=%llu p50_us=%llu "
		     "p90_us=%llu p99_us=%llu max_us=%llu approx=%u\n",
		     traced_measure_name(r->measure), traced_measure_key(r->measure), key,
		     (unsigned long long)r->count, (unsigned long long)r->unpaired,
		     (unsigned long long)min, (unsigned long long)p[0], (unsigned long long)p[1],
		     (unsigned long long)p[2], (unsigned long long)max, r->approx);
	} else {
		line("  %-22s %8llu %8llu %8llu %8llu %8llu %8llu %8llu%s\n", key,
		     (unsigned long long)r->count, (unsigned long long)r->unpaired,
		     (unsigned long long)min, (unsigned long long)p[0], (unsigned long long)p[1],
		     (unsigned long long)p[2], (unsigned long long)max, r->approx ? " ~" : "");
	}
}

static void print_stats(bool kv)
{
	if (kv) {
		line("events=%llu lost=%llu\n", (unsigned long long)st.events,
		     (unsigned long long)st.lost);
	} else {
		line("# stats: %llu events, %llu lost\n# %-22s %8s\n",
		     (unsigned long long)st.events, (unsigned long long)st.lost, "kind", "count");
	}
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (!info) {
			continue;
		}
		if (kv) {
			line("kind=%s count=%llu\n", info->name, (unsigned long long)st.kinds[k]);
		} else {
			line("  %-22s %8llu\n", info->name, (unsigned long long)st.kinds[k]);
		}
	}
	for (uint32_t m = 1; m < TRACED_MEASURE_LIMIT; m++) {
		if (!kv) {
			line("# %-22s %8s %8s %8s %8s %8s %8s %8s  (us)\n", traced_measure_name(m),
			     "count", "unpaired", "min", "p50", "p90", "p99", "max");
		}
		for (uint32_t i = 0; i < ROWS && st.row[i].measure; i++) {
			if (st.row[i].measure == m) {
				print_row(&st.row[i], kv);
			}
		}
	}
}

/* bpftrace's hist(): the buckets from the lowest used to the highest, each with its bar. */
static void print_hist(const struct traced_stats_request *r)
{
	uint64_t sum[BUCKETS] = {0}, count = 0, unpaired = 0, top = 0;
	int lo = -1, hi = -1;

	for (uint32_t i = 0; i < ROWS && st.row[i].measure; i++) {
		const struct row *w = &st.row[i];
		if (w->measure != r->measure || (r->key != TRACED_STATS_ANY && w->key != r->key) ||
		    (r->path != TRACED_PATH_ANY && w->path != r->path)) {
			continue;
		}
		count += w->count;
		unpaired += w->unpaired;
		for (int b = 0; b < BUCKETS; b++) {
			sum[b] += w->bucket[b];
		}
	}
	for (int b = 0; b < BUCKETS; b++) {
		if (sum[b]) {
			lo = lo < 0 ? b : lo;
			hi = b;
			top = sum[b] > top ? sum[b] : top;
		}
	}
	line("# hist %s: %llu values (us), %llu unpaired, %llu events, %llu lost\n",
	     traced_measure_name(r->measure), (unsigned long long)count,
	     (unsigned long long)unpaired, (unsigned long long)st.events,
	     (unsigned long long)st.lost);
	for (int b = lo; b >= 0 && b <= hi; b++) {
		char range[48];
		char bar[BAR_WIDTH + 1];
		uint32_t n = (uint32_t)(sum[b] * BAR_WIDTH / top);
		if (b < 2) {
			format_snprintf(range, sizeof(range), "[%d]", b);
		} else {
			format_snprintf(range, sizeof(range), "[%llu, %llu)", 1ull << (b - 1),
					1ull << b);
		}
		memset(bar, '@', n);
		memset(bar + n, ' ', BAR_WIDTH - n);
		bar[BAR_WIDTH] = '\0';
		line("%-20s %8llu |%s|\n", range, (unsigned long long)sum[b], bar);
	}
}

/* Whether request r asks for what kept holds: the same question from the same window. */
static bool same_question(const struct traced_stats_request *r)
{
	struct traced_stats_request a = *r, b = kept.req;

	a.cursor.next[0] = b.cursor.next[0] = 0;
	return kept.valid && !memcmp(&a, &b, sizeof(a));
}

static int check(const struct traced_stats_request *r)
{
	if (r->reserved || r->form > TRACED_STATS_HIST ||
	    (r->form == TRACED_STATS_HIST) != (r->measure != 0) ||
	    r->measure >= TRACED_MEASURE_LIMIT || r->path >= TRACED_PATH_LIMIT ||
	    (r->form != TRACED_STATS_HIST && (r->key || r->path))) {
		return -EINVAL;
	}
	static const struct traced_cursor zero;
	return dump_check(TRACED_OP_DUMP, &r->filter, &zero);
}

int stats_page(const struct request *req, struct reply *rep)
{
	struct traced_stats_request r;
	const struct scope *scope;

	if (req->len != sizeof(r)) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (check(&r) || listing_cursor_check(&r.cursor, TEXT_MAX, 0)) {
		return -EINVAL;
	}
	int err = request_scope(req, &scope);
	if (err) {
		return err;
	}
	if (!r.cursor.magic || !same_question(&r)) {
		err = compute(&r, scope);
		if (err) {
			return err;
		}
		out = format_buf_start(kept.text, sizeof(kept.text));
		if (r.form == TRACED_STATS_HIST) {
			print_hist(&r);
		} else {
			print_stats(r.form == TRACED_STATS_KV);
		}
		kept.len = out.len < sizeof(kept.text) ? out.len : sizeof(kept.text) - 1;
		kept.req = r;
		kept.valid = true;
	}
	uint64_t at = r.cursor.magic ? r.cursor.next[0] : 0;
	if (at > kept.len) {
		return -EINVAL;
	}
	/* A page ends at a line's end, so no line is cut between two. */
	size_t n = kept.len - at < TRACED_PAGE_DATA_MAX ? kept.len - at : TRACED_PAGE_DATA_MAX;
	while (at + n < kept.len && n && kept.text[at + n - 1] != '\n') {
		n--;
	}
	memcpy(rep->buf + sizeof(struct traced_dump_reply), kept.text + at, n);
	listing_cursor_at(&r.cursor, at + n);
	kept.req.cursor = r.cursor;
	page_finish(rep, &r.cursor, at + n == kept.len, (uint32_t)n, 0);
	return 0;
}
