/*
 * uevent_parse: user-event descriptions both ways (the grammar and the
 * error list are in abi/uevent.h): the parser from text to a definition,
 * the printer of a definition's canonical text, and the equality rule for
 * registering an event twice. Pure code: no allocation, no locks, no
 * blocking; compiled by the kernel, libc and the host tests. Keeping the
 * registry of events and their ids is left to the kernel.
 */
#ifndef SPOOR_COMMON_UEVENT_PARSE_H
#define SPOOR_COMMON_UEVENT_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "abi/uevent.h"

/*
 * Parses the len bytes at desc (fewer if a NUL comes first) into *out.
 * Returns 0, or -EINVAL, -E2BIG or -ENAMETOOLONG as abi/uevent.h lists
 * them, with a one-line reason naming the offending word written to why
 * (NUL-terminated, cut to why_size; why may be NULL when why_size is 0).
 * On success every byte of *out not holding a name or field is zero; on
 * error *out is unspecified. Reads nothing past desc[len - 1].
 */
int uevent_parse(const char *desc, size_t len, struct uevent_def *out, char *why, size_t why_size);

/*
 * True if a and b define the same event: the same name and the same
 * fields (names, order, types, struct types and sizes). Registering an
 * event again returns the existing one only when this holds.
 */
bool uevent_def_same(const struct uevent_def *a, const struct uevent_def *b);

/*
 * Writes d's canonical description ("name u32 a;char[16] s"), which
 * uevent_parse() turns back into d. NUL-terminated when size > 0 (buf may
 * be NULL when size is 0); returns the length of the whole text, like
 * snprintf. d must be a definition uevent_parse() produced.
 */
int uevent_def_format(const struct uevent_def *d, char *buf, size_t size);

#endif
