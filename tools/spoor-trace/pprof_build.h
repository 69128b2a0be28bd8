/*
 * pprof_build: the tables of a pprof profile as pprof.c fills them, and
 * the profile they make, packed with protobuf-c and gzipped with zlib.
 * Strings, mappings, functions and locations are each kept once, their
 * ids (indexes for strings) in the order first added, as profile.proto
 * wants them: the string "" at index 0, every id from 1.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_PPROF_BUILD_H
#define SPOOR_TOOLS_SPOOR_TRACE_PPROF_BUILD_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/tally.h"

/* The sample types, in the profile's order. */
#define PPROF_SAMPLES 0 /* the profiler's */
#define PPROF_EVENTS  1 /* events with a stack */
#define PPROF_TYPES   2

struct pprof_mapping {
	int64_t filename;
	uint64_t low, high; /* the addresses seen in it */
};

struct pprof_location {
	uint64_t mapping, address, function;
	int64_t line;
};

struct pprof_sample {
	uint64_t *locations; /* innermost first */
	size_t n;
	uint32_t type; /* PPROF_* */
	int64_t event; /* PPROF_EVENTS: its kind's name (a string), else 0 */
	int64_t pid, tid;
};

struct pprof_build {
	struct tally strings, mapping_keys, function_keys, location_keys;
	struct pprof_mapping *mappings;
	int64_t (*functions)[3]; /* name, system_name, filename */
	struct pprof_location *locations;
	struct pprof_sample *samples;
	size_t nsamples, samples_cap;
	uint64_t first_ns, last_ns; /* the samples' span: the profile's duration */
};

/* An empty profile. Returns 0 or -ENOMEM. */
int pprof_build_init(struct pprof_build *b);
void pprof_build_fini(struct pprof_build *b);

/* The index of string s, added when new; -ENOMEM. */
int64_t pprof_string(struct pprof_build *b, const char *s);

/*
 * The id of the mapping of module (its file named file), added when new,
 * its range grown to hold addr. -ENOMEM.
 */
int64_t pprof_mapping(struct pprof_build *b, const char *module, const char *file, uint64_t addr);

/*
 * The id of the location at addr of module (a mapping named file), its
 * function called name in source file src (NULL: none) at line; added
 * when new. -ENOMEM.
 */
int64_t pprof_location(struct pprof_build *b, const char *module, const char *file, uint64_t addr,
		       const char *name, const char *src, int64_t line);

/* Adds a sample: it takes locations (malloc'd). Returns 0 or -ENOMEM (locations freed). */
int pprof_sample(struct pprof_build *b, const struct pprof_sample *s);

/* The profile, gzipped, to out. Returns 0, -ENOMEM or -EIO. */
int pprof_build_write(struct pprof_build *b, FILE *out);

#endif
