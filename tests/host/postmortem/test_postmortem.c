/*
 * The post-mortem reader (tools/spoor-postmortem): a trace area written
 * by the kernel's own writers (kernel/trace/), placed in a synthetic
 * dump-guest-memory core, is found and turned into a file that
 * spoor-trace's checks accept, with every event and the ledger exact;
 * bad dumps give one line, never a crash.
 */
#include <elf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/trace_ring.h"
#include "rand.h"
#include "test.h"
#include "tools/spoor-postmortem/dump.h"
#include "tools/spoor-postmortem/extract.h"
#include "tools/spoor-trace/file.h"
#include "trace/area_init.h"
#include "trace/aux_write.h"
#include "trace/ring_write.h"
#include "writers.h"

#define AREA_PHYS 0x200000ull /* where the area sits in the guest */
#define RAM_BYTES (8ull << 20)
#define NCPUS	  2
#define ENTRIES	  64
#define WHY	  256

/* A guest: its RAM (the area inside it, contiguous as the kernel allocates it). */
struct guest {
	uint8_t *ram;
	uint64_t ram_bytes;
	struct ttrace_area a;
};

/* Lays out and prepares a trace area at ram + phys, as the kernel does, into *a. */
static void area_make(uint8_t *ram, uint64_t phys, struct ttrace_area *a)
{
	struct ttrace_geometry geo = {
	    .num_cpus = NCPUS,
	    .ring_entries = ENTRIES,
	    .aux_durable_size = (ttrace_aux_names_size() + 7) & ~7ull,
	    .aux_ring_size = 8192,
	    .tsc_hz = 1000000000,
	    .boot_tsc = 1000,
	};
	struct ttrace_header h;

	CHECK(!ttrace_header_init(&h, &geo), "the header");
	ttrace_area_place(a, ram + phys, &h);
	CHECK(!ttrace_area_init(a) && !ttrace_aux_write_names(a, 1000), "area init");
}

/* A guest of ram_bytes of RAM whose trace area is at area_phys. */
static void guest_make_at(struct guest *g, uint64_t ram_bytes, uint64_t area_phys)
{
	g->ram = calloc(1, ram_bytes);
	g->ram_bytes = ram_bytes;
	CHECK(g->ram, "guest");
	area_make(g->ram, area_phys, &g->a);
}

static void guest_make(struct guest *g)
{
	guest_make_at(g, RAM_BYTES, AREA_PHYS);
}

/* n events on cpu, of 1..3 slots, timestamps interleaving with the other CPU's. */
static void guest_events(struct guest *g, uint32_t cpu, uint32_t n)
{
	struct ttrace_ring r;

	ttrace_ring_get(&r, &g->a, cpu);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t data[TTRACE_EVENT_WORDS_MAX] = {i, cpu, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
		struct ttrace_event ev = {
		    .ts = 2000 + 10ull * i + cpu * 5,
		    .pid = 1,
		    .tid = 2,
		    .kind = TTRACE_KIND_test_tick,
		    .ctx = TTRACE_CTX_KERNEL,
		    .nwords = (uint8_t)(i % 3 == 2 ? 12 : 2),
		    .data = data,
		};
		CHECK(host_slow_write(&r, &ev), "write");
	}
}

/*
 * The guest's RAM as an ELF core, as QEMU writes one: a PT_NOTE, then
 * PT_LOADs with their physical addresses; below 1 MiB a hole, as PCs have.
 * Returns the bytes (malloc()ed) and their length in *len.
 */
static uint8_t *core_make(const struct guest *g, size_t *len)
{
	const uint64_t seg_start[2] = {0, 0x100000},
		       seg_len[2] = {0xa0000, g->ram_bytes - 0x100000};
	size_t head = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr);
	size_t size = head + seg_len[0] + seg_len[1];
	uint8_t *core = calloc(1, size);
	Elf64_Ehdr eh = {
	    .e_type = ET_CORE,
	    .e_machine = EM_X86_64,
	    .e_version = EV_CURRENT,
	    .e_phoff = sizeof(Elf64_Ehdr),
	    .e_ehsize = sizeof(Elf64_Ehdr),
	    .e_phentsize = sizeof(Elf64_Phdr),
	    .e_phnum = 3,
	};

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(core, &eh, sizeof(eh));
	Elf64_Phdr note = {.p_type = PT_NOTE, .p_offset = head};
	memcpy(core + sizeof(eh), &note, sizeof(note));
	size_t off = head;
	for (int i = 0; i < 2; i++) {
		Elf64_Phdr ph = {.p_type = PT_LOAD,
				 .p_offset = off,
				 .p_paddr = seg_start[i],
				 .p_filesz = seg_len[i],
				 .p_memsz = seg_len[i]};
		memcpy(core + sizeof(eh) + (1 + i) * sizeof(ph), &ph, sizeof(ph));
		memcpy(core + off, g->ram + seg_start[i], seg_len[i]);
		off += seg_len[i];
	}
	*len = size;
	return core;
}

static struct dump_area found; /* where the last extract() found the area */

/*
 * Extracts from a core of len bytes, the kernel's record of the area at
 * guest physical *record (NULL: no kernel.elf known); 0 with the parsed
 * file, -1 with why when the reader refuses, -2 with why when spoor-trace
 * refuses its file.
 */
static int extract_by(const uint8_t *core, size_t len, const uint64_t *record,
		      struct extract_result *res, struct tfile *f, char *why)
{
	struct dump d;
	struct ttrace_area a;
	uint8_t *copy = NULL;

	memset(res, 0, sizeof(*res));
	if (dump_parse(&d, core, len, why, WHY) ||
	    dump_find_area(&d, record, &a, &copy, &found, why, WHY)) {
		return -1;
	}
	int rc = extract_file(&a, res, why, WHY);
	free(copy);
	if (!rc && tfile_parse(res->bytes, res->len, f, why, WHY)) {
		return -2;
	}
	return rc;
}

/* extract_by() with no kernel.elf known: the only area that passes is taken. */
static int extract(const uint8_t *core, size_t len, struct extract_result *res, struct tfile *f,
		   char *why)
{
	return extract_by(core, len, NULL, res, f, why);
}

/* The events of CPU cpu in file f, in order: their seq and data[0]. */
static uint32_t file_events(const struct tfile *f, uint32_t cpu, uint32_t *seq, uint64_t *d0,
			    uint32_t max)
{
	uint32_t n = 0;

	for (size_t s = 0; s < f->nspans; s++) {
		const union ttrace_slot *sl = (const void *)(f->data + f->spans[s].offset);
		for (uint64_t k = 0; k < f->spans[s].size / sizeof(*sl);) {
			const struct ttrace_entry *e = &sl[k].e;
			if (e->kind != TRACED_KIND_LOST && e->cpu == cpu && n < max) {
				seq[n] = e->seq;
				d0[n++] = e->data[0];
			}
			k += e->kind == TRACED_KIND_LOST ? 1 : 1 + TTRACE_NCONT_OF(e->ctx);
		}
	}
	return n;
}

TEST(postmortem_reads_every_cpu_and_the_ledger)
{
	struct guest g;
	struct extract_result res;
	struct tfile f;
	char why[WHY] = "";
	size_t len;

	guest_make(&g);
	guest_events(&g, 0, 10); /* fits: 14 entries */
	guest_events(&g, 1, 60); /* laps the 64-entry ring: the oldest are overwritten */
	uint8_t *core = core_make(&g, &len);
	CHECK(extract(core, len, &res, &f, why) == 0, "extract: %s", why);
	CHECK(res.bytes && !res.corrupt && !res.aux_cut, "a good dump is whole");
	CHECK_EQ_UINT(found.phys, AREA_PHYS, "the area's address");
	CHECK_EQ_UINT(f.cpu_events[0], 10, "cpu 0's events");
	CHECK_EQ_UINT(f.ledger[0].lost, 0, "cpu 0's loss");
	CHECK_EQ_UINT(f.ledger[1].emitted, 80, "cpu 1's entries: 40 of one slot, 20 of two");
	CHECK_EQ_UINT(f.ledger[1].overwritten, 16, "cpu 1's overwritten");
	/* Entry 16 starts event 12 (4 entries each 3 events): read whole from there, no orphan. */
	CHECK_EQ_UINT(f.ledger[1].lost, 16, "cpu 1's loss: what was overwritten");
	CHECK_EQ_UINT(f.cpu_events[1], 48, "cpu 1's events after the overwritten ones");
	uint32_t seq[64];
	uint64_t d0[64];
	uint32_t n = file_events(&f, 1, seq, d0, 64);
	CHECK(n == 48 && d0[0] == 12 && d0[47] == 59, "cpu 1: %u events, %llu..%llu", n,
	      (unsigned long long)d0[0], (unsigned long long)d0[n ? n - 1 : 0]);
	tfile_free(&f);
	free(res.bytes);
	free(core);
	free(g.ram);
}

TEST(postmortem_counts_a_slot_left_half_written)
{
	struct guest g;
	struct extract_result res;
	struct tfile f;
	char why[WHY] = "";
	size_t len;

	guest_make(&g);
	guest_events(&g, 0, 6); /* entries 0, 1, 2-3, 4, 5, 6-7 */
	/* The CPU stopped inside event 2's W2: its head slot still marked, its continuation not. */
	g.a.rings[2].e.ts = TTRACE_TS_WRITING;
	uint8_t *core = core_make(&g, &len);
	CHECK(extract(core, len, &res, &f, why) == 0, "extract: %s", why);
	CHECK_EQ_UINT(res.stuck, 1, "slots left half written");
	CHECK_EQ_UINT(f.cpu_events[0], 5, "the other events are all read");
	CHECK_EQ_UINT(f.ledger[0].lost, 2, "the event's two entries lost");
	CHECK_EQ_UINT(f.ledger[0].stored, 8, "the ledger still counts them stored");
	tfile_free(&f);
	free(res.bytes);
	free(core);
	free(g.ram);
}

TEST(postmortem_refuses_bad_dumps_in_one_line)
{
	struct guest g;
	struct extract_result res;
	struct tfile f;
	char why[WHY];
	size_t len;

	guest_make(&g);
	guest_events(&g, 0, 20);
	uint8_t *core = core_make(&g, &len);
	size_t area_at = len - (RAM_BYTES - AREA_PHYS); /* the area's offset in the core */
	static const struct {
		const char *what;
		size_t cut; /* bytes of the core kept; 0: all */
		size_t at;  /* a byte to corrupt, relative to the area; SIZE_MAX: none */
		uint8_t value;
		const char *says;
	} rows[] = {
	    {"not ELF", 3, SIZE_MAX, 0, "not an ELF file"},
	    {"cut inside the area", 0x2000, SIZE_MAX, 0, "past the dump's memory"},
	    {"cut before the area", 0x1000, SIZE_MAX, 0, "no trace area"},
	    {"a wrong version", 0, offsetof(struct ttrace_header, version_major), 9, "version"},
	    {"a corrupted geometry", 0, offsetof(struct ttrace_header, ring_entries), 3,
	     "no usable trace area"},
	    {"no magic", 0, 0, 0, "no trace area"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint8_t *c = malloc(len);
		memcpy(c, core, len);
		size_t n = len;
		if (rows[i].cut) {
			n = rows[i].cut < 0x100 ? rows[i].cut : area_at + rows[i].cut;
		}
		if (rows[i].cut == 0x1000) {
			n = area_at - 0x1000;
		}
		if (rows[i].at != SIZE_MAX) {
			c[area_at + rows[i].at] = rows[i].value;
		}
		why[0] = '\0';
		int rc = extract(c, n, &res, &f, why);
		CHECK(rc == -1 && strstr(why, rows[i].says) && !strchr(why, '\n'),
		      "%s: rc %d, says '%s'", rows[i].what, rc, why);
		free(c);
	}
	free(core);
	free(g.ram);
}

TEST(postmortem_survives_inconsistent_heads)
{
	struct guest g;
	struct extract_result res;
	struct tfile f;
	char why[WHY] = "";
	size_t len;

	guest_make(&g);
	guest_events(&g, 0, 20);
	guest_events(&g, 1, 5);
	/* A head far past what the ring holds, another below a clear_index: read what is whole. */
	g.a.hdr->cpu[0].head += 1000003;
	g.a.hdr->cpu[1].clear_index = g.a.hdr->cpu[1].head + 7;
	uint8_t *core = core_make(&g, &len);
	int rc = extract(core, len, &res, &f, why);
	CHECK(rc == 0 || (rc == -1 && why[0]), "rc %d: %s", rc, why);
	if (rc == 0) {
		CHECK_EQ_UINT(f.ledger[0].lost + f.ledger[0].cleared, f.ledger[0].emitted - 0,
			      "cpu 0: nothing readable at a head 1000003 past the ring");
		tfile_free(&f);
	}
	free(res.bytes);
	free(core);
	free(g.ram);
}

/*
 * Random damage to a dump's area (header, rings, aux) and ELF headers:
 * the reader gives one line or a file, never a crash (ASan and UBSan
 * watch), and any file it writes passes spoor-trace's checks: corrupt
 * rings read as events the reader validated, or as loss.
 */
TEST(postmortem_fuzzed_dumps_never_crash)
{
	struct guest g;
	size_t len;
	uint64_t seed = 0x5eed2525;
	uint32_t written = 0, refused = 0;

	guest_make(&g);
	guest_events(&g, 0, 50);
	guest_events(&g, 1, 30);
	struct ttrace_aux_item it = {
	    .id = 7, .ts = 3000, .str = "fuzzed", .len = 6, .tag = TTRACE_AUX_PROC};
	uint64_t ref;
	CHECK(!ttrace_aux_write(&g.a, &it, &ref), "aux write");
	uint8_t *core = core_make(&g, &len);
	size_t area_at = len - (RAM_BYTES - AREA_PHYS);
	uint64_t area_size = g.a.hdr->area_size;
	uint8_t *c = malloc(len);
	for (uint32_t round = 0; round < 3000; round++) {
		memcpy(c, core, len);
		uint32_t flips = 1 + (uint32_t)(test_random(&seed) % 8);
		for (uint32_t k = 0; k < flips; k++) {
			uint64_t r = test_random(&seed);
			/* Mostly the area, its header most; now and then the ELF headers. */
			size_t at = r % 16 == 0
					? (r >> 8) % (sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr))
				    : r % 4 == 0 ? area_at + (r >> 8) % sizeof(struct ttrace_header)
						 : area_at + (r >> 8) % area_size;
			c[at] = (uint8_t)(test_random(&seed) >> 24);
		}
		size_t n = test_random(&seed) % 32 == 0 ? (size_t)(test_random(&seed) % len) : len;
		struct extract_result res;
		struct tfile f;
		char why[WHY] = "";
		int rc = extract(c, n, &res, &f, why);
		CHECK(rc != -2, "round %u: the reader wrote a file spoor-trace refuses: %s", round,
		      why);
		CHECK(rc || !strchr(why, '\n'), "round %u", round);
		if (!rc) {
			tfile_free(&f);
			written++;
		} else {
			refused++;
		}
		free(res.bytes);
	}
	CHECK(written > 100 && refused > 100, "%u files written, %u dumps refused", written,
	      refused);
	free(c);
	free(core);
	free(g.ram);
}

/* Ends the test run with a failure when a test does not finish in time. */
static void timed_out(int sig)
{
	static const char say[] = "FAIL: the post-mortem reader did not finish in time\n";

	(void)sig;
	(void)!write(STDOUT_FILENO, say, sizeof(say) - 1);
	_exit(1);
}

/*
 * A hostile guest fills its memory with pages that start with the magic
 * and name an area of most of the dump, in a geometry no reader accepts:
 * each is refused from its header alone, without copying what it names,
 * so the real area after them is found while a copy of every page's
 * area would take hours. SIGALRM ends the run if it takes more than a
 * minute (the reader needs well under a second).
 */
TEST(postmortem_refuses_a_dump_full_of_forged_headers_quickly)
{
	const uint64_t ram = 64ull << 20, real = ram - (4ull << 20);
	struct guest g;
	struct extract_result res;
	struct tfile f;
	char why[WHY] = "";
	size_t len;

	guest_make_at(&g, ram, real);
	guest_events(&g, 0, 5);
	struct ttrace_header forged = *g.a.hdr;
	forged.area_size = 40ull << 20;
	forged.ring_entries = 3;
	for (uint64_t p = 0x100000; p < real; p += TTRACE_PAGE_SIZE) {
		memcpy(g.ram + p, &forged, sizeof(forged));
	}
	uint8_t *core = core_make(&g, &len);
	signal(SIGALRM, timed_out);
	alarm(60);
	int rc = extract(core, len, &res, &f, why);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	CHECK(rc == 0, "extract: %s", why);
	CHECK_EQ_UINT(found.phys, real, "the real area's address");
	if (!rc) {
		CHECK_EQ_UINT(f.cpu_events[0], 5, "cpu 0's events");
		tfile_free(&f);
	}
	free(res.bytes);
	free(core);
	free(g.ram);
}

/* A program's forgery: a whole valid area at phys of g's RAM, its events proc_fault of pid 1. */
static void plant_forged_area(struct guest *g, uint64_t phys)
{
	struct ttrace_area fake;
	struct ttrace_ring r;

	area_make(g->ram, phys, &fake);
	ttrace_ring_get(&r, &fake, 0);
	for (uint32_t i = 0; i < 40; i++) {
		uint64_t data[] = {1, 14, 0, 0x401000};
		struct ttrace_event ev = {.ts = 1500 + i,
					  .pid = 1,
					  .tid = 1,
					  .kind = TTRACE_KIND_proc_fault,
					  .ctx = TTRACE_CTX_KERNEL,
					  .nwords = 4,
					  .data = data};
		CHECK(host_slow_write(&r, &ev), "a forged write");
	}
}

/*
 * A program plants a whole valid area in its memory, below the kernel's:
 * the area the kernel's record names is taken and the other counted;
 * without kernel.elf two areas pass and none is taken; with the kernel's
 * damaged, the forged one is not taken either.
 */
TEST(postmortem_takes_the_area_the_kernel_recorded_not_a_forged_one)
{
	const uint64_t record = 0x180000, at = AREA_PHYS;
	struct extract_result res;
	struct tfile f;
	char why[WHY] = "";
	struct guest g;
	size_t len;

	guest_make(&g);
	guest_events(&g, 0, 10);
	plant_forged_area(&g, 0x100000);
	memcpy(g.ram + record, &at, sizeof(at));
	uint8_t *core = core_make(&g, &len);
	CHECK(extract_by(core, len, &record, &res, &f, why) == 0, "extract: %s", why);
	CHECK_EQ_UINT(found.phys, AREA_PHYS, "the kernel's area, not the forged one below it");
	CHECK_EQ_UINT(found.others, 1, "the other page that passes as an area");
	if (res.bytes) {
		CHECK_EQ_UINT(f.cpu_events[0], 10, "the kernel's events");
		tfile_free(&f);
	}
	free(res.bytes);

	CHECK(extract(core, len, &res, &f, why) == -1 &&
		  strstr(why, "2 pages hold trace areas that pass the checks"),
	      "without kernel.elf: %s", why);

	size_t area_at = len - (RAM_BYTES - AREA_PHYS);
	core[area_at + offsetof(struct ttrace_header, version_major)] = 9;
	CHECK(extract_by(core, len, &record, &res, &f, why) == -1 && strstr(why, "0x200000") &&
		  strstr(why, "version") && strstr(why, "1 other page"),
	      "the kernel's area damaged: %s", why);

	memset(core + len - (RAM_BYTES - record), 0, sizeof(at));
	CHECK(extract_by(core, len, &record, &res, &f, why) == -1 &&
		  strstr(why, "the kernel made no trace area"),
	      "no area recorded: %s", why);
	free(core);
	free(g.ram);
}
