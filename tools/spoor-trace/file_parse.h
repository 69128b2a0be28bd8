/*
 * file_parse: what file.c (a saved trace's sections) and chunks.c (a
 * recording's chunks) share of the parser behind tfile_parse(): its
 * state and the checks of the sections both kinds of file hold, below
 * both. Each returns 0, -EINVAL with the refusal in p->why, or -ENOMEM.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_FILE_PARSE_H
#define SPOOR_TOOLS_SPOOR_TRACE_FILE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/spoor-trace/tfile.h"

#define SLOT	  TTRACE_ENTRY_SIZE
#define HEAD_SIZE sizeof(struct ttrace_file_section)

struct parser {
	const uint8_t *d;
	uint64_t size;
	struct tfile *f;
	char *why;
	size_t why_size;
	uint64_t hashed, sum; /* the checksum of the file's bytes [0, hashed) */
};

/* Puts "byte AT: " and the message in p->why; returns -EINVAL. */
int tparse_refuse(struct parser *p, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checksum of the file's bytes [0, to) (CHECKSUMS): on from where the last call stopped. */
uint64_t tparse_sum(struct parser *p, uint64_t to);

/* "a" or "an", as said before the name of section type t. */
const char *tparse_article(uint32_t t);

/* The name of section type t ("EVENTS"), or "unknown". */
const char *tparse_section_name(uint32_t t);

/*
 * The section head at off, into *s: refused if the END section came
 * before it (ended) or the file ends inside it. Its payload is not
 * checked yet.
 */
int tparse_section_head(struct parser *p, uint64_t off, bool ended, struct ttrace_file_section *s);

/* The sections' checks: the payload of size bytes at payload, its head at head. */
int tparse_events(struct parser *p, uint64_t payload, uint64_t size);
/*
 * A CPU_EVENTS section (minor 3): its head, then slots of its CPU alone;
 * and whether a section of stream (0: EVENTS, c + 1: CPU c's) may follow
 * the spans before (a file holds one kind or the other).
 */
int tparse_cpu_events(struct parser *p, uint64_t head, uint64_t payload, uint64_t size);
bool tparse_stream_ok(struct parser *p, uint64_t at, uint32_t stream);
int tparse_records(struct parser *p, uint64_t at, uint64_t pos, uint64_t len, const char *what);
int tparse_durable(struct parser *p, uint64_t head, uint64_t payload, uint64_t size);
int tparse_ledger(struct parser *p, uint64_t head, uint64_t payload, uint64_t size);
int tparse_end(struct parser *p, uint64_t head, uint64_t payload, uint64_t size);
/*
 * A PREDICATE section (minor 5): its head, the text (no NUL, zero
 * padding) and that it compiles for the header's filter, into f->pred.
 */
int tparse_pred(struct parser *p, uint64_t head, uint64_t payload, uint64_t size);

#endif
