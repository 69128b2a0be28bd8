/*
 * trace_stats: counts and latencies folded from events (see
 * trace_stats.h). Pure code, as common/ is: the caller's memory, the
 * compiler's builtins, format_buf for the text.
 */
#include "common/trace_stats.h"

#include "common/trace_names.h"
#include "common/traced_words.h"

#define OCTAVES	    TTRACE_STATS_OCTAVES
#define SUB_BITS    TTRACE_STATS_SUB_BITS
#define FINE	    TTRACE_STATS_FINE
#define ROWS	    TTRACE_STATS_ROWS
#define BAR_WIDTH   52 /* a histogram bar at its longest, as bpftrace draws it */
#define NO_TID	    0  /* a pending slot that holds nothing */
#define UNKNOWN	    (TRACED_STATS_ANY - 1) /* a row key only the missing half would tell */
#define UNKNOWN_KEY "unknown"		   /* its word: `help trace stats` explains it */
#define US_PER_S    1000000ull
#define PERCENTILES 3

static const uint32_t percentile[PERCENTILES] = {50, 90, 99};

/* A time as a dump prints it, in whole microseconds since boot. */
static uint64_t us_of(const struct ttrace_stats *st, uint64_t ts)
{
	const struct ttrace_header *h = st->hdr;
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;

	if (!h->tsc_hz) {
		return d;
	}
	return d / h->tsc_hz * US_PER_S + d % h->tsc_hz * US_PER_S / h->tsc_hz;
}

static struct ttrace_stats_row *row_of(struct ttrace_stats *st, uint32_t measure, uint64_t key,
				       uint32_t path)
{
	for (uint32_t i = 0; i < ROWS; i++) {
		struct ttrace_stats_row *r = &st->row[i];
		if (!r->measure) {
			__builtin_memset(r, 0, sizeof(*r));
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

/* bpftrace's log2 bucket of us: [0], [1], [2, 4), [4, 8), ... at most OCTAVES. */
static uint32_t bucket_of(uint64_t us)
{
	uint32_t b = us ? (uint32_t)(64 - __builtin_clzll(us)) : 0;

	return b < OCTAVES ? b : OCTAVES;
}

/*
 * The log-linear bucket of us (as HdrHistogram's): below 2^SUB_BITS one
 * a value, then each octave [2^o, 2^(o+1)) in 2^SUB_BITS equal steps, so
 * a bucket's start is within an eighth of any value in it, and no bucket
 * straddles two octaves. The last holds everything from its start.
 */
static uint32_t fine_of(uint64_t us)
{
	if (us < (1u << SUB_BITS)) {
		return (uint32_t)us;
	}
	uint32_t o = (uint32_t)(63 - __builtin_clzll(us));
	uint32_t i = ((o - SUB_BITS + 1) << SUB_BITS) +
		     (uint32_t)(us >> (o - SUB_BITS) & ((1u << SUB_BITS) - 1));
	return i < FINE ? i : FINE - 1;
}

/* The smallest value of fine bucket i. */
static uint64_t fine_start(uint32_t i)
{
	if (i < (1u << SUB_BITS)) {
		return i;
	}
	uint32_t o = (i >> SUB_BITS) + SUB_BITS - 1;
	return (1ull << o) + ((uint64_t)(i & ((1u << SUB_BITS) - 1)) << (o - SUB_BITS));
}

static void add_latency(struct ttrace_stats_row *r, uint64_t us)
{
	uint32_t i = 0;

	r->count++;
	r->min = us < r->min ? us : r->min;
	r->max = us > r->max ? us : r->max;
	r->fine[fine_of(us)]++;
	while (i < r->nvalues && r->value[i].us < us) {
		i++;
	}
	if (i < r->nvalues && r->value[i].us == us) {
		r->value[i].n++;
	} else if (r->nvalues < TRACED_STATS_VALUES) {
		__builtin_memmove(&r->value[i + 1], &r->value[i],
				  (r->nvalues - i) * sizeof(r->value[0]));
		r->value[i].us = us;
		r->value[i].n = 1;
		r->nvalues++;
	} else {
		r->approx = true;
	}
}

static void add_unpaired(struct ttrace_stats *st, uint32_t measure, uint64_t key, uint32_t path)
{
	struct ttrace_stats_row *r = row_of(st, measure, key, path);

	if (r) {
		r->unpaired++;
	}
}

static struct ttrace_stats_pending *pending_of(struct ttrace_stats *st, uint32_t tid,
					       uint32_t measure)
{
	for (uint32_t i = 0; i < TRACED_STATS_THREADS; i++) {
		if (st->pending[i].tid == tid && st->pending[i].measure == measure) {
			return &st->pending[i];
		}
	}
	return NULL;
}

/* Waits for the second half; a first half that finds no room is unpaired at once. */
static void begin(struct ttrace_stats *st, uint32_t tid, uint32_t measure, uint64_t us,
		  uint64_t key)
{
	struct ttrace_stats_pending *p = pending_of(st, tid, measure);

	if (p) {
		add_unpaired(st, measure, p->key, p->path); /* its second half never came */
	} else {
		p = pending_of(st, NO_TID, 0);
	}
	if (!p) {
		add_unpaired(st, measure, key, TRACED_PATH_SLOW * (measure == TRACED_MEASURE_IPC));
		return;
	}
	*p = (struct ttrace_stats_pending){.tid = tid,
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
static void end(struct ttrace_stats *st, uint32_t tid, uint32_t measure, uint64_t us,
		const uint64_t *key)
{
	struct ttrace_stats_pending *p = pending_of(st, tid, measure);

	if (!p) {
		add_unpaired(st, measure, key ? *key : UNKNOWN,
			     key ? TRACED_PATH_SLOW * (measure == TRACED_MEASURE_IPC)
				 : TRACED_PATH_ANY);
		return;
	}
	uint64_t k = key ? *key : p->key;
	struct ttrace_stats_row *r = row_of(st, measure, k, p->path);
	if (r && us >= p->us) {
		add_latency(r, us - p->us);
	} else if (r) {
		r->unpaired += 2;
	}
	p->tid = NO_TID;
	p->measure = 0;
}

/* A loss may have taken any second half: every pending first half is unpaired. */
static void flush_pending(struct ttrace_stats *st)
{
	for (uint32_t i = 0; i < TRACED_STATS_THREADS; i++) {
		struct ttrace_stats_pending *p = &st->pending[i];
		if (p->tid != NO_TID) {
			add_unpaired(st, p->measure, p->key, p->path);
			p->tid = NO_TID;
			p->measure = 0;
		}
	}
}

/* tid took a call on endpoint: the newest server of it (a full table keeps the first ones). */
static void server_seen(struct ttrace_stats *st, uint64_t endpoint, uint32_t tid)
{
	struct ttrace_stats_server *free = NULL;

	if (!tid) {
		return;
	}
	for (uint32_t i = 0; i < TTRACE_STATS_ROWS; i++) {
		struct ttrace_stats_server *s = &st->server[i];
		if (s->tid && s->endpoint == endpoint) {
			s->tid = tid;
			return;
		}
		if (!s->tid && !free) {
			free = s;
		}
	}
	if (free) {
		*free = (struct ttrace_stats_server){.endpoint = endpoint, .tid = tid};
	}
}

/* The thread last seen taking a call on endpoint, or 0. */
static uint32_t server_of(const struct ttrace_stats *st, uint64_t endpoint)
{
	for (uint32_t i = 0; i < TTRACE_STATS_ROWS; i++) {
		if (st->server[i].tid && st->server[i].endpoint == endpoint) {
			return st->server[i].tid;
		}
	}
	return 0;
}

void ttrace_stats_event(struct ttrace_stats *st, const struct ttrace_entry *e)
{
	uint64_t us = us_of(st, e->ts);
	uint64_t cpu = e->cpu;

	st->events++;
	if (e->kind < TTRACE_KIND_LIMIT) {
		st->kinds[e->kind]++;
	}
	switch (e->kind) {
	case TTRACE_KIND_syscall_entry:
		begin(st, e->tid, TRACED_MEASURE_SYSCALL, us, e->data[0]);
		break;
	case TTRACE_KIND_syscall_exit:
		end(st, e->tid, TRACED_MEASURE_SYSCALL, us, &e->data[0]);
		break;
	case TTRACE_KIND_ipc_call:
		begin(st, e->tid, TRACED_MEASURE_IPC, us, e->data[0]);
		break;
	case TTRACE_KIND_ipc_recv:
		server_seen(st, e->data[0], e->tid);
		break;
	case TTRACE_KIND_ipc_fastpath: {
		struct ttrace_stats_pending *p = pending_of(st, e->tid, TRACED_MEASURE_IPC);
		if (p) {
			p->path = TRACED_PATH_FAST;
		}
		/* recorded by the caller: its peer is the server, switched to */
		server_seen(st, e->data[0], (uint32_t)e->data[2]);
		break;
	}
	case TTRACE_KIND_ipc_slowpath: {
		/*
		 * A caller waiting on its call wakes the server (its peer); a
		 * server replying wakes its caller, and has no call pending on
		 * the endpoint it receives on.
		 */
		struct ttrace_stats_pending *p = pending_of(st, e->tid, TRACED_MEASURE_IPC);
		if (p && p->key == e->data[0]) {
			server_seen(st, e->data[0], (uint32_t)e->data[2]);
		}
		break;
	}
	case TTRACE_KIND_ipc_reply:
		/* A reply names the caller it wakes (peer); its endpoint is the call's. */
		end(st, (uint32_t)e->data[2], TRACED_MEASURE_IPC, us, NULL);
		break;
	case TTRACE_KIND_mem_pf_entry:
		begin(st, e->tid, TRACED_MEASURE_PF, us,
		      UNKNOWN); /* the outcome comes with mem_pf */
		break;
	case TTRACE_KIND_mem_pf:
		end(st, e->tid, TRACED_MEASURE_PF, us, &e->data[3]);
		break;
	case TTRACE_KIND_sched_wakeup:
		if (!pending_of(st, (uint32_t)e->data[0], TRACED_MEASURE_WAKEUP)) {
			/* the CPU is the one that runs it: known at the switch */
			begin(st, (uint32_t)e->data[0], TRACED_MEASURE_WAKEUP, us, UNKNOWN);
		}
		break;
	case TTRACE_KIND_sched_switch:
		/* Not every switch follows a wakeup: only one that does is a pair. */
		if (pending_of(st, (uint32_t)e->data[2], TRACED_MEASURE_WAKEUP)) {
			end(st, (uint32_t)e->data[2], TRACED_MEASURE_WAKEUP, us, &cpu);
		}
		break;
	default:
		break;
	}
}

#define line(...) format_buf_printf(out, __VA_ARGS__)

/* The value at nearest rank p of row r (exact while it kept every value). */
static uint64_t rank_value(const struct ttrace_stats_row *r, uint32_t p)
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
	for (uint32_t i = 0; i < FINE; i++) {
		seen += r->fine[i];
		if (seen >= rank) {
			uint64_t v = fine_start(i);
			return v < r->min ? r->min : v > r->max ? r->max : v;
		}
	}
	return r->max;
}

/*
 * A row's key as text: a syscall's name, an endpoint with its server and
 * path ("2 (traced) path=fast", or "2 server=traced path=fast" for kv),
 * an outcome, a cpu.
 */
static void key_text(const struct ttrace_stats *st, const struct ttrace_stats_row *r, bool kv,
		     const struct ttrace_decoder *d, char *buf, size_t size)
{
	size_t len;
	const char *name;
	char server[TTRACE_COMM_MAX];

	if (r->key == UNKNOWN && r->measure == TRACED_MEASURE_IPC) {
		format_snprintf(buf, size, UNKNOWN_KEY " path=%s", traced_path_name(r->path));
	} else if (r->key == UNKNOWN) {
		format_snprintf(buf, size, UNKNOWN_KEY);
	} else if (r->measure == TRACED_MEASURE_SYSCALL &&
		   (name = ttrace_decoder_syscall(d, r->key, &len))) {
		format_snprintf(buf, size, "%.*s", (int)len, name);
	} else if (r->measure == TRACED_MEASURE_IPC) {
		uint32_t tid = server_of(st, r->key);
		if (!tid || !ttrace_decoder_thread(d, tid, server, sizeof(server))) {
			format_snprintf(server, sizeof(server), "?");
		}
		format_snprintf(buf, size, kv ? "%llu server=%s path=%s" : "%llu (%s) path=%s",
				(unsigned long long)r->key, server, traced_path_name(r->path));
	} else if (r->measure == TRACED_MEASURE_PF) {
		format_snprintf(buf, size, "%s", traced_outcome_name(r->key));
	} else {
		format_snprintf(buf, size, "%llu", (unsigned long long)r->key);
	}
}

static void print_row(struct format_buf *out, const struct ttrace_stats *st,
		      const struct ttrace_stats_row *r, bool kv, const struct ttrace_decoder *d)
{
	char key[96];
	uint64_t p[PERCENTILES];

	key_text(st, r, kv, d, key, sizeof(key));
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
		/* A row without a pair has no latency: - , not a 0 that reads as one. */
		char v[PERCENTILES + 2][24];
		const uint64_t value[PERCENTILES + 2] = {min, p[0], p[1], p[2], max};
		for (int i = 0; i < PERCENTILES + 2; i++) {
			format_snprintf(v[i], sizeof(v[i]), r->count ? "%llu" : "-",
					(unsigned long long)value[i]);
		}
		line("  %-22s %8llu %8llu %8s %8s %8s %8s %8s\n", key, (unsigned long long)r->count,
		     (unsigned long long)r->unpaired, v[0], v[1], v[2], v[3], v[4]);
	}
}

/* Whether kind k has a row: it has events, or the filter names it (kind=). */
static bool kind_shown(const struct ttrace_stats *st, const struct traced_filter *f, uint32_t k)
{
	return st->kinds[k] || (f->flags & TRACED_F_KINDS && k < TRACED_KIND_WORDS * 64 &&
				f->kinds[k / 64] >> (k % 64) & 1);
}

void ttrace_stats_print(const struct ttrace_stats *st, struct format_buf *out,
			const struct traced_filter *f, bool kv, const struct ttrace_decoder *d,
			const char *losses)
{
	if (kv) {
		line("events=%llu lost=%llu lost_outside=%llu lost_early=%llu\n",
		     (unsigned long long)st->events, (unsigned long long)st->lost,
		     (unsigned long long)st->outside, (unsigned long long)st->early);
	} else {
		line("# stats: %llu events, %llu lost\n", (unsigned long long)st->events,
		     (unsigned long long)st->lost);
		line("%s", losses);
		line("# %-22s %8s\n", "kind", "count");
	}
	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(k);
		if (!info || !kind_shown(st, f, k)) {
			continue;
		}
		if (kv) {
			line("kind=%s count=%llu\n", info->name, (unsigned long long)st->kinds[k]);
		} else {
			line("  %-22s %8llu\n", info->name, (unsigned long long)st->kinds[k]);
		}
	}
	for (uint32_t m = 1; m < TRACED_MEASURE_LIMIT; m++) {
		bool head = kv; /* a table's head only above rows */
		for (uint32_t i = 0; i < ROWS && st->row[i].measure; i++) {
			if (st->row[i].measure != m) {
				continue;
			}
			if (!head) {
				line("# %-22s %8s %8s %8s %8s %8s %8s %8s  (us)\n",
				     traced_measure_name(m), "count", "unpaired", "min", "p50",
				     "p90", "p99", "max");
				head = true;
			}
			print_row(out, st, &st->row[i], kv, d);
		}
	}
}

/* bpftrace's hist(): the buckets from the lowest used to the highest, each with its bar. */
void ttrace_stats_print_hist(const struct ttrace_stats *st, struct format_buf *out,
			     const struct traced_stats_request *r, const char *losses)
{
	uint64_t sum[OCTAVES + 1] = {0}, count = 0, unpaired = 0, top = 0;
	int lo = -1, hi = -1;

	for (uint32_t i = 0; i < ROWS && st->row[i].measure; i++) {
		const struct ttrace_stats_row *w = &st->row[i];
		if (w->measure != r->measure || (r->key != TRACED_STATS_ANY && w->key != r->key) ||
		    (r->path != TRACED_PATH_ANY && w->path != r->path)) {
			continue;
		}
		count += w->count;
		unpaired += w->unpaired;
		for (uint32_t i = 0; i < FINE; i++) {
			sum[bucket_of(fine_start(i))] += w->fine[i];
		}
	}
	for (int b = 0; b <= OCTAVES; b++) {
		if (sum[b]) {
			lo = lo < 0 ? b : lo;
			hi = b;
			top = sum[b] > top ? sum[b] : top;
		}
	}
	line("# hist %s: %llu values (us), %llu unpaired, %llu events, %llu lost\n",
	     traced_measure_name(r->measure), (unsigned long long)count,
	     (unsigned long long)unpaired, (unsigned long long)st->events,
	     (unsigned long long)st->lost);
	line("%s", losses);
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
		__builtin_memset(bar, '@', n);
		__builtin_memset(bar + n, ' ', BAR_WIDTH - n);
		bar[BAR_WIDTH] = '\0';
		line("%-20s %8llu |%s|\n", range, (unsigned long long)sum[b], bar);
	}
}

void ttrace_stats_start(struct ttrace_stats *st, const struct ttrace_header *h)
{
	__builtin_memset(st, 0, sizeof(*st));
	st->hdr = h;
}

void ttrace_stats_lost(struct ttrace_stats *st, uint64_t n)
{
	st->lost += n;
	flush_pending(st);
}

void ttrace_stats_finish(struct ttrace_stats *st)
{
	flush_pending(st);
}
