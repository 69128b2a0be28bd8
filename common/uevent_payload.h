/*
 * uevent_payload: the payload of one user-event write (its layout is in
 * abi/uevent.h): the check the kernel makes on each write, and the
 * key=value text of a written payload in a dump line. Pure code: no
 * allocation, no locks, no blocking; compiled by the kernel, libc and the
 * host tests. Printing the rest of a dump line is left to trace_format.
 */
#ifndef SPOOR_COMMON_UEVENT_PAYLOAD_H
#define SPOOR_COMMON_UEVENT_PAYLOAD_H

#include <stddef.h>

#include "abi/uevent.h"

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
