/*
 * gen: the test files' builder (see gen.h). It writes what `trace save`
 * writes, from abi/trace_file.h alone, so a reader that accepts these
 * files reads the format and not this builder's habits. Out of memory
 * aborts: this is test code.
 */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/uevent.h"
#include "common/fnv.h"

#define SLOT TTRACE_ENTRY_SIZE

static void *grow(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		abort();
	}
	return q;
}

void gen_init(struct gen *g, uint32_t num_cpus)
{
	memset(g, 0, sizeof(*g));
	g->hdr = (struct ttrace_file_header){
	    .magic = TTRACE_FILE_MAGIC,
	    .version_major = TTRACE_FILE_VERSION_MAJOR,
	    .version_minor = TTRACE_FILE_VERSION_MINOR,
	    .header_size = sizeof(struct ttrace_file_header),
	    .num_cpus = num_cpus,
	    .tsc_hz = GEN_TSC_HZ,
	    .boot_tsc = GEN_BOOT_TSC,
	    .aux_durable_size = 2048,
	    .aux_ring_size = GEN_AUX_RING,
	    .mask = TTRACE_CAT_ALL,
	    .mode = TTRACE_MODE_OVERWRITE,
	    .ring_entries = 1024,
	    .trace_version_major = TTRACE_VERSION_MAJOR,
	    .trace_version_minor = TTRACE_VERSION_MINOR,
	    .entry_size = TTRACE_ENTRY_SIZE,
	    .saved_ns = 5000000000ull,
	};
	g->first = g->last = g->hdr.aux_durable_size;
}

void gen_free(struct gen *g)
{
	free(g->durable);
	free(g->ring);
	free(g->slots);
	free(g->starts);
	memset(g, 0, sizeof(*g));
}

uint64_t gen_ts(uint64_t us)
{
	return GEN_BOOT_TSC + us * (GEN_TSC_HZ / 1000000);
}

/* The record's bytes at out (TTRACE_AUX_RECORD_SIZE(len) of them). */
static void record(uint8_t *out, uint64_t pos, uint16_t tag, uint64_t id, const char *s)
{
	size_t len = strlen(s);
	struct ttrace_aux_record r = {.pos = pos,
				      .ts = gen_ts(1),
				      .id = id,
				      .tag = tag,
				      .len = (uint16_t)len,
				      .flags = TTRACE_AUX_VALID};

	memset(out, 0, TTRACE_AUX_RECORD_SIZE(len));
	memcpy(out, &r, sizeof(r));
	memcpy(out + sizeof(r), s, len);
}

uint64_t gen_durable(struct gen *g, uint16_t tag, uint64_t id, const char *s)
{
	uint64_t size = TTRACE_AUX_RECORD_SIZE(strlen(s));
	uint64_t pos = g->durable_len;

	if (pos + size > g->hdr.aux_durable_size) {
		abort(); /* the sample fits: a test asking more is wrong */
	}
	g->durable = grow(g->durable, pos + size);
	record(g->durable + pos, pos, tag, id, s);
	g->durable_len += size;
	return pos;
}

void gen_evict(struct gen *g)
{
	struct ttrace_aux_record r;

	if (g->first == g->last) {
		return;
	}
	memcpy(&r, g->ring, sizeof(r));
	uint64_t size = TTRACE_AUX_RECORD_SIZE(r.len);
	memmove(g->ring, g->ring + size, g->last - g->first - size);
	g->first += size;
}

uint64_t gen_aux(struct gen *g, uint16_t tag, uint64_t id, const char *s)
{
	uint64_t size = TTRACE_AUX_RECORD_SIZE(strlen(s));
	uint64_t pos = g->last;

	while (g->last + size - g->first > g->hdr.aux_ring_size) {
		gen_evict(g); /* AW1 */
	}
	g->ring = grow(g->ring, g->last - g->first + size);
	record(g->ring + (g->last - g->first), pos, tag, id, s);
	g->last += size;
	return pos;
}

static uint8_t *new_slots(struct gen *g, size_t n)
{
	if (g->nslots + n > g->cap) {
		g->cap = 2 * (g->nslots + n);
		g->slots = grow(g->slots, g->cap * SLOT);
	}
	if (g->nstarts == g->starts_cap) {
		g->starts_cap = g->starts_cap ? 2 * g->starts_cap : 64;
		g->starts = grow(g->starts, g->starts_cap * sizeof(*g->starts));
	}
	g->starts[g->nstarts++] = g->nslots;
	uint8_t *p = g->slots + g->nslots * SLOT;
	memset(p, 0, n * SLOT);
	g->nslots += n;
	return p;
}

void gen_event(struct gen *g, uint32_t cpu, uint64_t ts, uint16_t kind, uint8_t context,
	       uint32_t pid, uint32_t tid, const uint64_t *words, uint32_t nwords)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};
	uint32_t slots = TTRACE_EVENT_SLOTS(nwords);
	struct ttrace_entry e = {.ts = ts & TTRACE_TS_MASK,
				 .seq = g->seq[cpu],
				 .kind = kind,
				 .cpu = (uint8_t)cpu,
				 .ctx = TTRACE_CTX_MAKE(context, slots - 1),
				 .pid = pid,
				 .tid = tid};

	memcpy(data, words, nwords * sizeof(*words));
	memcpy(e.data, data, sizeof(e.data));
	uint8_t *p = new_slots(g, slots);
	memcpy(p, &e, sizeof(e));
	for (uint32_t j = 1; j < slots; j++) {
		struct ttrace_cont c = {.ts = e.ts | TTRACE_TS_CONT};
		memcpy(c.data, &data[TTRACE_HEAD_WORDS + (j - 1) * TTRACE_CONT_WORDS],
		       sizeof(c.data));
		memcpy(p + j * SLOT, &c, sizeof(c));
	}
	g->seq[cpu] += slots;
	g->cpu_slots[cpu] += slots;
	g->events++;
}

void gen_user(struct gen *g, uint32_t cpu, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t id,
	      uint32_t generation, const void *payload, uint32_t len)
{
	uint64_t words[TTRACE_EVENT_WORDS_MAX] = {UEVENT_WORD0(id, generation, len)};

	memcpy(&words[1], payload, len);
	gen_event(g, cpu, ts, TTRACE_KIND_user, TTRACE_CTX_USER, pid, tid, words,
		  1 + (len + 7) / 8);
}

void gen_lost(struct gen *g, uint32_t cpu, uint64_t n)
{
	struct ttrace_entry e = {.kind = TRACED_KIND_LOST, .cpu = (uint8_t)cpu, .data = {n}};

	memcpy(new_slots(g, 1), &e, sizeof(e));
	g->lost += n;
	g->cpu_lost[cpu] += n;
	g->seq[cpu] += (uint32_t)n;
}

struct out {
	uint8_t *buf;
	size_t len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!n) {
		return;
	}
	if (o->len + n > o->cap) {
		o->cap = 2 * (o->len + n);
		o->buf = grow(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void section(struct out *o, uint32_t type, const void *payload, uint64_t size)
{
	struct ttrace_file_section s = {.type = type, .size = size};

	put(o, &s, sizeof(s));
	put(o, payload, size);
}

static void events(struct out *o, const struct gen *g)
{
	size_t from = 0;

	for (size_t i = 0; i < g->nstarts; i++) {
		size_t at = g->starts[i];
		size_t next = i + 1 < g->nstarts ? g->starts[i + 1] : g->nslots;

		/* Cut before event i when it would take the section past section_slots. */
		if (g->section_slots && at > from && next - from > g->section_slots) {
			section(o, TTRACE_FILE_EVENTS, g->slots + from * SLOT, (at - from) * SLOT);
			from = at;
		}
	}
	if (g->nslots > from) {
		section(o, TTRACE_FILE_EVENTS, g->slots + from * SLOT, (g->nslots - from) * SLOT);
	}
}

/* The items of [a, b) (slot indices) on cpu alone, as a CPU_EVENTS section (minor 3). */
static void cpu_section(struct out *o, const struct gen *g, size_t a, size_t b, uint32_t cpu)
{
	struct ttrace_file_cpu_events head = {.cpu = cpu};
	struct ttrace_file_section s = {.type = TTRACE_FILE_CPU_EVENTS, .size = sizeof(head)};
	size_t at = o->len;

	put(o, &s, sizeof(s));
	put(o, &head, sizeof(head));
	for (size_t i = a; i < b;) {
		struct ttrace_entry e;
		memcpy(&e, g->slots + i * SLOT, sizeof(e));
		uint32_t n = e.kind == TRACED_KIND_LOST ? 1 : 1 + TTRACE_NCONT_OF(e.ctx);
		if (e.cpu == cpu) {
			put(o, g->slots + i * SLOT, n * SLOT);
			s.size += n * SLOT;
		}
		i += n;
	}
	if (s.size == sizeof(head)) {
		o->len = at; /* none of this CPU's: no section */
		return;
	}
	memcpy(o->buf + at, &s, sizeof(s));
}

uint8_t *gen_file(const struct gen *g, const uint32_t *order, size_t *len)
{
	static const uint32_t standard[] = {TTRACE_FILE_EVENTS,	  TTRACE_FILE_AUX_DURABLE,
					    TTRACE_FILE_AUX_RING, TTRACE_FILE_LEDGER,
					    TTRACE_FILE_END,	  0};
	struct out o = {0};
	uint64_t zero = 0;

	put(&o, &g->hdr, sizeof(g->hdr));
	for (const uint32_t *t = order ? order : standard; *t; t++) {
		switch (*t) {
		case TTRACE_FILE_EVENTS:
			events(&o, g);
			break;
		case TTRACE_FILE_CPU_EVENTS:
			for (uint32_t c = 0; c < g->hdr.num_cpus; c++) {
				cpu_section(&o, g, 0, g->nslots, c);
			}
			break;
		case TTRACE_FILE_AUX_DURABLE:
			section(&o, *t, g->durable, g->durable_len);
			break;
		case TTRACE_FILE_AUX_RING: {
			struct ttrace_file_aux_ring r = {.first = g->first, .last = g->last};
			struct ttrace_file_section s = {.type = *t,
							.size = sizeof(r) + g->last - g->first};
			put(&o, &s, sizeof(s));
			put(&o, &r, sizeof(r));
			put(&o, g->ring, g->last - g->first);
			break;
		}
		case TTRACE_FILE_LEDGER: {
			struct ttrace_file_ledger l[TTRACE_MAX_CPUS];
			for (uint32_t c = 0; c < g->hdr.num_cpus; c++) {
				l[c] = (struct ttrace_file_ledger){
				    .stored = g->cpu_slots[c],
				    .overwritten = g->cpu_lost[c],
				    .emitted = g->cpu_slots[c] + g->cpu_lost[c],
				    .lost = g->cpu_lost[c],
				};
			}
			section(&o, *t, l, g->hdr.num_cpus * sizeof(l[0]));
			break;
		}
		case TTRACE_FILE_PREDICATE: {
			static const uint8_t zeros[8];
			struct ttrace_file_predicate h = {.len = (uint32_t)strlen(g->pred)};
			size_t padded = (h.len + 7u) & ~(size_t)7;
			struct ttrace_file_section s = {.type = *t, .size = sizeof(h) + padded};
			put(&o, &s, sizeof(s));
			put(&o, &h, sizeof(h));
			put(&o, g->pred, h.len);
			put(&o, zeros, padded - h.len);
			break;
		}
		case TTRACE_FILE_END: {
			struct ttrace_file_end e = {.events = g->events, .lost = g->lost};
			struct ttrace_file_section s = {.type = *t, .size = sizeof(e)};
			put(&o, &s, sizeof(s));
			e.checksum = ttrace_file_sum(g->hdr.version_minor, TTRACE_FNV_OFFSET, o.buf,
						     o.len - sizeof(s));
			put(&o, &e, sizeof(e));
			break;
		}
		default:
			section(&o, *t, &zero, sizeof(zero));
			break;
		}
	}
	*len = o.len;
	return o.buf;
}

#define GEN_RING_FIRST 100 /* where a recording's rings start */
#define GEN_PASSED     2   /* entries a CPU's filter passes over a chunk (SIEVED) */

/* The slot item starts at (nslots past the last). */
static size_t slot_of(const struct gen *g, size_t item)
{
	return item < g->nstarts ? g->starts[item] : g->nslots;
}

#define GEN_SKEW 3 /* items each CPU's part of a per-CPU chunk ends after the last CPU's */

/*
 * Where CPU cpu's part of a per-CPU chunk cut at item ends: GEN_SKEW
 * items later a CPU, as traced copies the CPUs' ranges one after another,
 * each up to its head then (the first chunk's start and the last's end
 * are all CPUs').
 */
static size_t skewed(const struct gen *g, size_t item, uint32_t cpu)
{
	size_t later = item + GEN_SKEW * cpu;

	return !item || item >= g->nstarts ? item : later < g->nstarts ? later : g->nstarts;
}

/* How a recording is laid out: merged, per CPU, or per CPU with a filter that passed entries over.
 */
#define MERGED	0
#define PER_CPU 1
#define SIEVED	2

/*
 * A recording's chunk of the items [from, to), per CPU (PER-CPU CHUNKS)
 * or merged; SIEVED, each CPU's ring read GEN_PASSED entries further a
 * chunk than its events and markers, the entries a filter left out.
 */
static void chunk(struct out *o, const struct gen *g, size_t from, size_t to, uint64_t seq,
		  uint64_t *entries, uint64_t *lost, uint64_t *passed, int layout)
{
	const bool per_cpu = layout != MERGED;

	struct ttrace_file_section s = {.type = TTRACE_FILE_CHUNK};
	struct ttrace_file_chunk c = {.seq = seq, .num_cpus = g->hdr.num_cpus};
	size_t head = o->len;
	size_t a = slot_of(g, from), b = slot_of(g, to);

	/* Its ns: as traced takes it, before its events are copied and after the last's. */
	c.ns = UINT64_MAX;
	for (size_t i = to; i < g->nstarts && c.ns == UINT64_MAX; i++) {
		struct ttrace_entry e;
		memcpy(&e, g->slots + g->starts[i] * SLOT, sizeof(e));
		if (e.kind != TRACED_KIND_LOST) {
			c.ns = (e.ts - g->hdr.boot_tsc) * 1000 / (g->hdr.tsc_hz / 1000000);
		}
	}
	put(o, &s, sizeof(s));
	put(o, &c, sizeof(c));
	for (uint32_t k = 0; k < g->hdr.num_cpus; k++) {
		size_t ka = per_cpu ? slot_of(g, skewed(g, from, k)) : a;
		size_t kb = per_cpu ? slot_of(g, skewed(g, to, k)) : b;
		for (size_t i = ka; i < kb;) {
			struct ttrace_entry e;
			memcpy(&e, g->slots + i * SLOT, sizeof(e));
			uint32_t n = e.kind == TRACED_KIND_LOST ? 1 : 1 + TTRACE_NCONT_OF(e.ctx);
			if (e.cpu == k && e.kind == TRACED_KIND_LOST) {
				lost[k] += e.data[0];
			} else if (e.cpu == k) {
				entries[k] += n;
			}
			i += n;
		}
		passed[k] += layout == SIEVED ? GEN_PASSED : 0;
		struct ttrace_file_chunk_cpu cc = {.first = GEN_RING_FIRST,
						   .next = GEN_RING_FIRST + entries[k] + lost[k] +
							   passed[k],
						   .entries = entries[k],
						   .lost = lost[k]};
		put(o, &cc, sizeof(cc));
	}
	if (!seq) {
		struct ttrace_file_aux_ring r = {.first = g->first, .last = g->last};
		struct ttrace_file_section rs = {.type = TTRACE_FILE_AUX_RING,
						 .size = sizeof(r) + g->last - g->first};
		section(o, TTRACE_FILE_AUX_DURABLE, g->durable, g->durable_len);
		put(o, &rs, sizeof(rs));
		put(o, &r, sizeof(r));
		put(o, g->ring, g->last - g->first);
	}
	for (uint32_t k = 0; per_cpu && k < g->hdr.num_cpus; k++) {
		cpu_section(o, g, slot_of(g, skewed(g, from, k)), slot_of(g, skewed(g, to, k)), k);
	}
	if (b > a && !per_cpu) {
		section(o, TTRACE_FILE_EVENTS, g->slots + a * SLOT, (b - a) * SLOT);
	}
	s.size = o->len + sizeof(uint64_t) - head - sizeof(s);
	memcpy(o->buf + head, &s, sizeof(s));
	uint64_t sum = ttrace_file_sum(g->hdr.version_minor, TTRACE_FNV_OFFSET, o->buf, o->len);
	put(o, &sum, sizeof(sum));
}

static uint8_t *recording(const struct gen *g, size_t chunk_items, bool finished, int layout,
			  size_t *len, size_t **chunk_ends, size_t *nchunks);

uint8_t *gen_recording(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
		       size_t **chunk_ends, size_t *nchunks)
{
	return recording(g, chunk_items, finished, MERGED, len, chunk_ends, nchunks);
}

uint8_t *gen_recording_cpus(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
			    size_t **chunk_ends, size_t *nchunks)
{
	return recording(g, chunk_items, finished, PER_CPU, len, chunk_ends, nchunks);
}

uint8_t *gen_recording_sieved(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
			      size_t **chunk_ends, size_t *nchunks)
{
	return recording(g, chunk_items, finished, SIEVED, len, chunk_ends, nchunks);
}

static uint8_t *recording(const struct gen *g, size_t chunk_items, bool finished, int layout,
			  size_t *len, size_t **chunk_ends, size_t *nchunks)
{
	struct out o = {0};
	struct ttrace_file_header h = g->hdr;
	uint64_t entries[TTRACE_MAX_CPUS] = {0}, lost[TTRACE_MAX_CPUS] = {0};
	uint64_t passed[TTRACE_MAX_CPUS] = {0};
	size_t n = 0, *ends = grow(NULL, sizeof(*ends) * (g->nstarts / chunk_items + 2));

	h.flags = TTRACE_FILE_F_RECORDING;
	if (layout == SIEVED) {
		/* A reader checks a filter's counts by its flags only: cpu= of every CPU. */
		h.filter = (struct traced_filter){.flags = TRACED_F_CPUS,
						  .cpus = (1u << g->hdr.num_cpus) - 1};
	}
	put(&o, &h, sizeof(h));
	for (size_t from = 0; !n || from < g->nstarts; from += chunk_items) {
		size_t to = from + chunk_items < g->nstarts ? from + chunk_items : g->nstarts;
		chunk(&o, g, from, to, n, entries, lost, passed, layout);
		ends[n++] = o.len;
	}
	if (finished) {
		struct ttrace_file_ledger l[TTRACE_MAX_CPUS];
		for (uint32_t c = 0; c < g->hdr.num_cpus; c++) {
			l[c] = (struct ttrace_file_ledger){
			    .emitted = GEN_RING_FIRST + entries[c] + lost[c] + passed[c],
			    .stored = GEN_RING_FIRST + entries[c] + passed[c],
			    .overwritten = lost[c],
			    .lost = lost[c],
			};
		}
		section(&o, TTRACE_FILE_LEDGER, l, g->hdr.num_cpus * sizeof(l[0]));
		struct ttrace_file_end e = {.events = g->events, .lost = g->lost};
		struct ttrace_file_section s = {.type = TTRACE_FILE_END, .size = sizeof(e)};
		put(&o, &s, sizeof(s));
		e.checksum = ttrace_file_sum(g->hdr.version_minor, TTRACE_FNV_OFFSET, o.buf,
					     o.len - sizeof(s));
		put(&o, &e, sizeof(e));
	}
	if (chunk_ends) {
		*chunk_ends = ends;
		*nchunks = n;
	} else {
		free(ends);
	}
	*len = o.len;
	return o.buf;
}

/* The format minor file's header says. */
static uint16_t minor_of(const uint8_t *file)
{
	uint16_t minor;

	memcpy(&minor, file + offsetof(struct ttrace_file_header, version_minor), sizeof(minor));
	return minor;
}

void gen_fix_chunk_sums(uint8_t *file, size_t len)
{
	size_t at = sizeof(struct ttrace_file_header);
	struct ttrace_file_section s;

	while (at <= len && len - at >= sizeof(s)) {
		memcpy(&s, file + at, sizeof(s));
		if (s.size > len - at - sizeof(s) || s.size < sizeof(uint64_t)) {
			return;
		}
		at += sizeof(s) + s.size;
		if (s.type == TTRACE_FILE_CHUNK) {
			uint64_t sum = ttrace_file_sum(minor_of(file), TTRACE_FNV_OFFSET, file,
						       at - sizeof(sum));
			memcpy(file + at - sizeof(sum), &sum, sizeof(sum));
		}
	}
}

void gen_fix_checksum(uint8_t *file, size_t len)
{
	const size_t end = sizeof(struct ttrace_file_section) + sizeof(struct ttrace_file_end);
	uint64_t sum;

	if (len < end) {
		return;
	}
	sum = ttrace_file_sum(minor_of(file), TTRACE_FNV_OFFSET, file, len - end);
	memcpy(file + len - sizeof(struct ttrace_file_end) +
		   offsetof(struct ttrace_file_end, checksum),
	       &sum, sizeof(sum));
}

/* A kind's event of up to four words, on cpu at us, by pid/tid in context. */
static void ev(struct gen *g, uint32_t cpu, uint64_t us, uint16_t kind, uint8_t context,
	       uint32_t pid, uint32_t tid, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	const uint64_t w[] = {a, b, c, d};

	gen_event(g, cpu, gen_ts(us), kind, context, pid, tid, w, 4);
}

#define K(name) TTRACE_KIND_##name
#define SYS	TTRACE_CTX_SYSCALL

/* The sample's syscall numbers (their names are in the durable part). */
#define NR_WRITE	  1
#define NR_IPC_CALL	  5
#define NR_IPC_RECV	  6
#define NR_IPC_REPLY_RECV 7
#define NR_SPAWN	  8

/* The demo user event: "demo u32 a;char[16] s;s64 b;unsigned char[4] raw;__data_loc char[] msg". */
struct demo_payload {
	uint32_t a;
	char s[16];
	int64_t b;
	uint8_t raw[4];
	uint32_t msg_loc;
	char msg[6];
} __attribute__((packed));

void gen_sample(struct gen *g, bool lossy)
{
	gen_init(g, 4);
	gen_durable(g, TTRACE_AUX_SYSCALL, NR_WRITE, "write");
	gen_durable(g, TTRACE_AUX_SYSCALL, 2, "exit");
	gen_durable(g, TTRACE_AUX_SYSCALL, NR_IPC_CALL, "ipc_call");
	gen_durable(g, TTRACE_AUX_SYSCALL, NR_IPC_RECV, "ipc_recv");
	gen_durable(g, TTRACE_AUX_SYSCALL, NR_IPC_REPLY_RECV, "ipc_reply_recv");
	gen_durable(g, TTRACE_AUX_SYSCALL, NR_SPAWN, "spawn");
	gen_durable(g, TTRACE_AUX_KIND, K(mem_pf),
		    "mem_pf mem vaddr:x rip:x err:x outcome:u=pf_outcome");
	uint64_t gone = gen_aux(g, TTRACE_AUX_PROC, 9, "gone");
	gen_aux(g, TTRACE_AUX_PROC, 1, "init");
	gen_aux(g, TTRACE_AUX_THREAD, 1, "init");
	gen_aux(g, TTRACE_AUX_PROC, 2, "traced");
	gen_aux(g, TTRACE_AUX_THREAD, 2, "traced");
	gen_aux(g, TTRACE_AUX_USER_EVENT, UEVENT_AUX_ID(0, 1),
		"demo u32 a;char[16] s;s64 b;unsigned char[4] raw;__data_loc char[] msg");
	gen_aux(g, TTRACE_AUX_USER_EVENT, UEVENT_AUX_ID(1, 1), "big char[64] text;u64 n");
	uint64_t hello = gen_aux(g, TTRACE_AUX_PROC, 3, "hello");
	gen_aux(g, TTRACE_AUX_THREAD, 4, "worker");
	gen_evict(g); /* "gone": a spawn names it, but it is no longer there */

	if (lossy) {
		gen_lost(g, 3, 3); /* cpu 3 starts with a loss */
	}
	ev(g, 0, 100, K(sched_switch), 0, 0, 0, 0, 0, 1, 0);
	ev(g, 1, 110, K(sched_switch), 0, 0, 0, 0, 0, 2, 0);
	ev(g, 0, 120, K(syscall_entry), SYS, 1, 1, NR_IPC_CALL, 3, 0x10, 0);
	gen_event(g, 0, gen_ts(125), K(ipc_call), SYS, 1, 1, (const uint64_t[]){3, 0x10, 0}, 3);
	gen_event(g, 1, gen_ts(130), K(ipc_recv), SYS, 2, 2, (const uint64_t[]){3, 0x10, 1}, 3);
	ev(g, 1, 140, K(syscall_exit), SYS, 2, 2, NR_IPC_RECV, 0, 0,
	   0); /* its entry is not saved */
	ev(g, 1, 150, K(mem_pf), TTRACE_CTX_TRAP, 2, 2, 0x400000, 0x401020, 6, TTRACE_PF_MAPPED);
	if (lossy) {
		gen_lost(g, 1, 5); /* in the middle of cpu 1 */
	}
	ev(g, 1, 160, K(syscall_entry), SYS, 2, 2, NR_IPC_REPLY_RECV, 3, 0, 0);
	gen_event(g, 1, gen_ts(165), K(ipc_reply), SYS, 2, 2, (const uint64_t[]){0, 0, 1}, 3);
	ev(g, 0, 170, K(syscall_exit), SYS, 1, 1, NR_IPC_CALL, 0, 0, 0);
	ev(g, 0, 180, K(syscall_entry), SYS, 1, 1, NR_SPAWN, 0x1000, 5, 0);
	gen_event(g, 0, gen_ts(190), K(proc_spawn), SYS, 1, 1, (const uint64_t[]){3, 1, hello}, 3);
	ev(g, 0, 195, K(syscall_exit), SYS, 1, 1, NR_SPAWN, 3, 0, 0);
	/* a write that copies its bytes in, then finds no one at the other end */
	ev(g, 0, 196, K(syscall_entry), SYS, 1, 1, NR_WRITE, 4, 0x7fe000, 5);
	ev(g, 0, 197, K(mem_copy), SYS, 1, 1, 0x7fe000, 5, TTRACE_COPY_FROM_USER, 0);
	ev(g, 0, 198, K(syscall_exit), SYS, 1, 1, NR_WRITE, (uint64_t)-EPIPE, 0, 0);
	gen_event(g, 2, gen_ts(200), K(irq_entry), TTRACE_CTX_IRQ, 0, 0, (const uint64_t[]){32}, 1);
	gen_event(g, 2, gen_ts(201), K(irq_timer), TTRACE_CTX_IRQ, 0, 0, (const uint64_t[]){5}, 1);
	gen_event(g, 2, gen_ts(202), K(irq_exit), TTRACE_CTX_IRQ, 0, 0, (const uint64_t[]){32}, 1);
	ev(g, 2, 210, K(sched_switch), 0, 0, 0, 0, 0, 3, 0);

	struct demo_payload demo = {.a = 7, .s = "hi", .b = -5, .raw = {1, 2, 3, 0xff}};
	demo.msg_loc = UEVENT_LOC_MAKE(sizeof(demo.msg), offsetof(struct demo_payload, msg));
	memcpy(demo.msg, "hello", sizeof(demo.msg));
	gen_user(g, 2, gen_ts(220), 3, 3, 0, 1, &demo, sizeof(demo));
	struct {
		char text[64];
		uint64_t n;
	} big = {.n = 42};
	memset(big.text, 'x', 40);
	memcpy(big.text, "continued", 9);
	gen_user(g, 2, gen_ts(230), 3, 3, 1, 1, &big, sizeof(big));
	ev(g, 3, 235, K(sched_switch), 0, 0, 0, 0, 0, 4, 0);
	const uint8_t raw[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	gen_user(g, 3, gen_ts(240), 3, 4, 7, 1, raw, sizeof(raw)); /* no definition */
	const uint64_t unknown[] = {1, 2, 3, 4, 5};
	gen_event(g, 3, gen_ts(250), 200, 0, 0, 0, unknown, 5);
	gen_event(g, 2, gen_ts(260), K(proc_spawn), SYS, 3, 3, (const uint64_t[]){9, 3, gone}, 3);
	ev(g, 2, 270, K(mem_pf), TTRACE_CTX_TRAP, 3, 3, 0, 0x401234, 4, TTRACE_PF_KILLED);
	ev(g, 2, 275, K(proc_fault), TTRACE_CTX_TRAP, 3, 3, 3, 14, 0, 0x401234);
	gen_event(g, 2, gen_ts(280), K(proc_exit), TTRACE_CTX_TRAP, 3, 3,
		  (const uint64_t[]){3, (uint64_t)-11}, 2);
	ev(g, 2, 290, K(sched_switch), 0, 3, 3, 3, 3, 0, 0);
	ev(g, 0, 300, K(sched_switch), 0, 1, 1, 1, 1, 0, 0);
	if (lossy) {
		gen_lost(g, 0, 2); /* the end of cpu 0 */
	}
}

/*
 * A switch on cpu at us by thread (pid, tid) to next; the thread leaves
 * blocked. None with GEN_TIMELINE_NO_SWITCHES in flags.
 */
static void sw(struct gen *g, unsigned flags, uint32_t cpu, uint64_t us, uint32_t pid, uint32_t tid,
	       uint32_t next)
{
	if (!(flags & GEN_TIMELINE_NO_SWITCHES)) {
		ev(g, cpu, us, K(sched_switch), 0, pid, tid, tid, pid ? 2 : 0, next, 0);
	}
}

void gen_timeline(struct gen *g, unsigned flags)
{
	/* The ids: the second file's differ, its names and times do not. */
	const bool other_ids = flags & GEN_TIMELINE_OTHER_IDS;
	const uint32_t mem = other_ids ? 6 : 3, mem_tid = other_ids ? 12 : 8;
	const uint32_t ipc = other_ids ? 7 : 4, ipc_tid = other_ids ? 13 : 9;

	gen_init(g, 3);
	gen_durable(g, TTRACE_AUX_SYSCALL, 1, "write");
	gen_aux(g, TTRACE_AUX_PROC, 1, "init");
	gen_aux(g, TTRACE_AUX_THREAD, 5, "init");
	gen_aux(g, TTRACE_AUX_PROC, mem, "memtest");
	gen_aux(g, TTRACE_AUX_THREAD, mem_tid, "memtest");
	gen_aux(g, TTRACE_AUX_PROC, ipc, "ipcping");
	gen_aux(g, TTRACE_AUX_THREAD, ipc_tid, "ipcping");
	gen_aux(g, TTRACE_AUX_THREAD, ipc_tid + 1, "ipcping");

	sw(g, flags, 1, 500, 0, 2, ipc_tid);
	for (uint64_t i = 0; i < 100; i++) {
		gen_event(g, 1, gen_ts(600 + 4 * i), K(ipc_call), SYS, ipc, ipc_tid,
			  (const uint64_t[]){3, 0x10, 0}, 3);
	}
	sw(g, flags, 0, 1000, 0, 1, mem_tid);
	for (uint64_t i = 0; i < 200; i++) {
		ev(g, 0, 1100 + 2 * i, K(mem_pf), TTRACE_CTX_TRAP, mem, mem_tid,
		   0x400000 + i * 4096, 0x401000, 6, TTRACE_PF_MAPPED);
	}
	sw(g, flags, 1, 2000, ipc, ipc_tid, ipc_tid + 1);
	for (uint64_t i = 0; i < 50; i++) {
		gen_event(g, 1, gen_ts(2100 + 4 * i), K(ipc_reply), SYS, ipc, ipc_tid + 1,
			  (const uint64_t[]){0, 0, ipc_tid}, 3);
	}
	sw(g, flags, 2, 3000, 0, 3, 5);
	sw(g, flags, 2, 3500, 1, 5, 3);
	gen_lost(g, 2, 7);
	sw(g, flags, 1, 4000, ipc, ipc_tid + 1, 2);
	sw(g, flags, 0, 5000, mem, mem_tid, 1);
	sw(g, flags, 0, 6000, 0, 1, 5);
	sw(g, flags, 0, 6500, 1, 5, 1);
	sw(g, flags, 2, 7000, 0, 3, 5);
	sw(g, flags, 2, 8000, 1, 5, 3);
	gen_event(g, 0, gen_ts(10000), K(irq_timer), TTRACE_CTX_IRQ, 0, 1, (const uint64_t[]){5},
		  1);
}

uint64_t gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void gen_random(struct gen *g, uint64_t seed)
{
	uint64_t s = seed;
	uint32_t ncpus = 1 + (uint32_t)(gen_rand(&s) % TTRACE_MAX_CPUS);
	uint64_t refs[16];
	size_t nrefs = 0;
	char name[32];

	gen_init(g, ncpus);
	g->section_slots = gen_rand(&s) % 4 ? 0 : 1 + gen_rand(&s) % 8;
	gen_durable(g, TTRACE_AUX_SYSCALL, 1, "write");
	gen_durable(g, TTRACE_AUX_SYSCALL, 5, "ipc_call");
	gen_aux(g, TTRACE_AUX_USER_EVENT, UEVENT_AUX_ID(0, 1), "demo u32 a;char[8] s;s16 b");
	gen_aux(g, TTRACE_AUX_USER_EVENT, UEVENT_AUX_ID(1, 2),
		"dyn __rel_loc char[] m;__data_loc unsigned char[] d;struct pt p 3");
	for (uint32_t i = 0; i < 1 + gen_rand(&s) % 40; i++) {
		snprintf(name, sizeof(name), "p%llu", (unsigned long long)(gen_rand(&s) % 1000));
		uint64_t ref = gen_aux(g, gen_rand(&s) % 2 ? TTRACE_AUX_PROC : TTRACE_AUX_THREAD,
				       gen_rand(&s) % 8, name);
		refs[nrefs++ % 16] = ref;
	}
	uint64_t us = 1;
	for (uint32_t i = 0, n = (uint32_t)(gen_rand(&s) % 48); i < n; i++) {
		uint32_t cpu = (uint32_t)(gen_rand(&s) % ncpus);
		uint64_t r = gen_rand(&s);
		uint64_t words[TTRACE_EVENT_WORDS_MAX];

		us += gen_rand(&s) % 50;
		if (r % 11 == 0) {
			gen_lost(g, cpu, 1 + gen_rand(&s) % 9);
			continue;
		}
		for (size_t w = 0; w < TTRACE_EVENT_WORDS_MAX; w++) {
			uint64_t pick = gen_rand(&s) % 8;
			/* small values (outcomes, states), some negative (errors), any */
			words[w] = pick < 5   ? gen_rand(&s) % 16
				   : pick < 6 ? -(gen_rand(&s) % 128)
					      : gen_rand(&s);
		}
		uint16_t kind =
		    (uint16_t)(1 + (r >> 8) % (TTRACE_KIND_LIMIT + 2)); /* 0: a marker */
		if (kind == TTRACE_KIND_proc_spawn && nrefs) {
			words[2] = refs[gen_rand(&s) % (nrefs < 16 ? nrefs : 16)];
		}
		if (kind == TTRACE_KIND_probe && nrefs) {
			words[0] = refs[gen_rand(&s) % (nrefs < 16 ? nrefs : 16)];
		}
		if (kind == TTRACE_KIND_user) {
			uint32_t len = (uint32_t)(gen_rand(&s) % 40);
			words[0] = UEVENT_WORD0(gen_rand(&s) % 3, 1 + gen_rand(&s) % 2, len);
			gen_event(g, cpu, gen_ts(us), kind, TTRACE_CTX_USER, 1 + (uint32_t)(r % 4),
				  (uint32_t)(r % 6), words, 1 + (len + 7) / 8);
			continue;
		}
		gen_event(g, cpu, gen_ts(us), kind, (uint8_t)(r % 5), (uint32_t)(r % 4),
			  (uint32_t)(r % 6), words,
			  1 + (uint32_t)(gen_rand(&s) % TTRACE_EVENT_WORDS_MAX));
	}
}

void gen_parse(const uint8_t *buf, size_t len, struct gen_parsed *p)
{
	p->err = tfile_parse(buf, len, &p->f, p->why, sizeof(p->why));
}
