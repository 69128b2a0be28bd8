/*
 * uevent: the parser and printer of user-event descriptions (the grammar,
 * payload layout and error list are in abi/uevent.h), the equality rule
 * for registering an event twice, the check the kernel makes on each
 * write, and the key=value text of a written payload. Pure code: no
 * allocation, no locks, no blocking; compiled by the kernel, libc and the
 * host tests. Keeping the registry of events and their ids is left to the
 * kernel, and printing the rest of a dump line to traced.
 */
#ifndef SPOOR_COMMON_UEVENT_H
#define SPOOR_COMMON_UEVENT_H

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

/*
 * The kernel's check of one write of len bytes for event d: 0, -EINVAL
 * if len < d->fixed_size, -E2BIG if len > UEVENT_PAYLOAD_MAX, -EFAULT if
 * a dynamic field's data lies outside the payload or a dynamic string is
 * empty or holds no NUL. Reads only payload[0..len).
 */
int uevent_payload_check(const struct uevent_def *d, const void *payload, size_t len);

/*
 * Writes the fields of a payload of d as "a=1 s=\"hi\" b=0a0b": integers
 * in decimal (signed ones with their sign), char arrays and dynamic
 * strings quoted up to their first NUL with '"', '\\' and bytes outside
 * printable ASCII escaped (\" \\ \xNN), unsigned char arrays, dynamic
 * bytes and structs as two hex digits a byte. A field whose bytes or
 * location lie outside payload[0..len), or a dynamic string without a
 * NUL, prints as <bad>. An event without fields prints as "". Reads only
 * payload[0..len); NUL-terminated when size > 0 (buf may be NULL when
 * size is 0); returns the length of the whole text, like snprintf.
 */
int uevent_payload_format(const struct uevent_def *d, const void *payload, size_t len, char *buf,
			  size_t size);

#endif
