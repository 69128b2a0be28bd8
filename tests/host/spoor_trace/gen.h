/*
 * gen: saved trace files (abi/trace_file.h) built in memory for the tests
 * of tools/spoor-trace: events of any kind, loss markers, durable and
 * ring aux records (the ring evicts its oldest records when full, as the
 * kernel's does), assembled with the sections in the standard order or
 * any other, and the checksum right. gen_sample() is the trace most
 * tests read; gen_random() makes varied ones for the fuzz test;
 * gen_parse() reads one back as spoor-trace does.
 */
#ifndef SPOOR_TESTS_HOST_SPOOR_TRACE_GEN_H
#define SPOOR_TESTS_HOST_SPOOR_TRACE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace_file.h"
#include "tools/spoor-trace/file.h"

#define GEN_TSC_HZ   2000000000ull /* 2 GHz: 2000 ticks a microsecond */
#define GEN_BOOT_TSC 1000000000ull /* boot half a second after the TSC's 0 */
#define GEN_AUX_RING 4096u	   /* the smallest aux ring: tests fill it easily */

struct gen {
	struct ttrace_file_header hdr;
	uint8_t *durable; /* aux positions [0, durable_len) */
	uint64_t durable_len;
	uint8_t *ring; /* aux positions [first, last), in order */
	uint64_t first, last;
	uint8_t *slots; /* the events' slots, 64 bytes each */
	size_t nslots, cap;
	size_t *starts; /* the slot each event or marker starts at */
	size_t nstarts, starts_cap;
	uint64_t events, lost;
	uint64_t cpu_lost[TTRACE_MAX_CPUS];
	uint64_t cpu_slots[TTRACE_MAX_CPUS];
	uint32_t seq[TTRACE_MAX_CPUS];
	size_t section_slots; /* EVENTS sections hold at most this many slots; 0: one section */
	char pred[TTRACE_PRED_TEXT_MAX + 1]; /* a PREDICATE section's text (gen_file's order) */
};

/* An empty trace of num_cpus CPUs, with GEN_TSC_HZ, GEN_BOOT_TSC and a GEN_AUX_RING ring. */
void gen_init(struct gen *g, uint32_t num_cpus);
void gen_free(struct gen *g);

/* The TSC us microseconds after boot. */
uint64_t gen_ts(uint64_t us);

/* Appends an aux record of tag and id, string s; returns its position. */
uint64_t gen_durable(struct gen *g, uint16_t tag, uint64_t id, const char *s);
uint64_t gen_aux(struct gen *g, uint16_t tag, uint64_t id, const char *s);

/* Evicts the ring's oldest record, as the writer does when the ring is full. */
void gen_evict(struct gen *g);

/* Appends an event: its head entry and the continuations nwords data words need. */
void gen_event(struct gen *g, uint32_t cpu, uint64_t ts, uint16_t kind, uint8_t context,
	       uint32_t pid, uint32_t tid, const uint64_t *words, uint32_t nwords);

/* Appends a user event: data[0] = UEVENT_WORD0(id, gen, len), then len payload bytes. */
void gen_user(struct gen *g, uint32_t cpu, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t id,
	      uint32_t generation, const void *payload, uint32_t len);

/* Appends a loss marker: n entries lost on cpu. */
void gen_lost(struct gen *g, uint32_t cpu, uint64_t n);

/*
 * The file, malloc'd, its length in *len. order lists the sections
 * (TTRACE_FILE_*, EVENTS standing for all of them, CPU_EVENTS for all of
 * them a section per CPU, as a save holds them from minor 4; PREDICATE
 * for one of g->pred, whatever its length; any other number for an
 * 8-byte section of that type), 0-terminated; NULL for the standard
 * order.
 */
uint8_t *gen_file(const struct gen *g, const uint32_t *order, size_t *len);

/*
 * The same trace as a recording (abi/trace_file.h, A RECORDING): chunks
 * of at most chunk_items events and markers each, the first with the aux
 * records, each CPU's ring starting at index 100; with finished, LEDGER
 * and END after them, else the file ends at its last chunk. *chunk_ends
 * (if not NULL) gets a malloc'd list of the offset after each chunk,
 * *nchunks their number.
 */
uint8_t *gen_recording(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
		       size_t **chunk_ends, size_t *nchunks);

/* The same with each chunk's events in CPU_EVENTS sections, a CPU each (minor 3). */
uint8_t *gen_recording_cpus(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
			    size_t **chunk_ends, size_t *nchunks);

/*
 * The same per CPU as a recording with a filter makes it (filtered
 * recordings per CPU, servers/traced/sieve.c): the header's filter set,
 * and each CPU's ring read past its events by entries the filter left out,
 * neither in the file nor lost (its counts' next is further than entries
 * + lost, as only a filtered recording's may be).
 */
uint8_t *gen_recording_sieved(const struct gen *g, size_t chunk_items, bool finished, size_t *len,
			      size_t **chunk_ends, size_t *nchunks);

/*
 * Sets the checksum of every chunk of a recording whose chunk heads hold
 * (up to the first that does not), after an edit.
 */
void gen_fix_chunk_sums(uint8_t *file, size_t len);

/* Sets the END checksum of a file whose END section ends it, after an edit. */
void gen_fix_checksum(uint8_t *file, size_t len);

/*
 * The sample trace: 4 CPUs, two programs calling a server, syscalls,
 * page faults, IRQs, a spawn, user events decoded (one with
 * continuations), raw (no definition) and an evicted string, an unknown
 * kind; with lossy, loss markers on three CPUs: at the start, the middle
 * and the end of their streams. Events, in time order, are listed in
 * gen.c.
 */
void gen_sample(struct gen *g, bool lossy);

/* gen_timeline()'s flags. */
#define GEN_TIMELINE_OTHER_IDS	 1u /* its programs under other pids and tids */
#define GEN_TIMELINE_NO_SWITCHES 2u /* as if sched was not traced: no sched_switch */

/*
 * The timeline's test trace: 3 CPUs whose switches, faults, IPC and loss
 * are listed in gen.c, changed as flags say.
 */
void gen_timeline(struct gen *g, unsigned flags);

/*
 * The stacks trace (gen_stacks.c): program "prog" (pid 3) sampled three
 * times in hot() called from middle() from _start (a[0] the ip, a[1] and
 * a[2] the return addresses), once in the kernel (a[3]) under the same,
 * once cut after an unnamed frame, once idle; and a mem_pf with the
 * first stack.
 */
void gen_stacks(struct gen *g, const uint64_t *a);

/* A trace of random events, markers and records from seed. */
void gen_random(struct gen *g, uint64_t seed);

/* The generators' PRNG (splitmix64): the next number from *state. */
uint64_t gen_rand(uint64_t *state);

/* A file as spoor-trace's reader took it: its answer and, when it refused it, why. */
struct gen_parsed {
	int err;
	char why[TFILE_WHY_MAX];
	struct tfile f;
};

/* Parses the whole file buf of len bytes with tfile_parse() into *p. */
void gen_parse(const uint8_t *buf, size_t len, struct gen_parsed *p);

#endif
