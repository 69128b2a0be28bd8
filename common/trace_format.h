/*
 * trace_format: one event as the line people read and tools parse,
 *
 *   [    1.234567] cpu=1 pid=3 tid=3 mem_pf vaddr=0x400000 rip=0x401020 err=0x6 outcome=0
 *
 * the same in the kernel's flight recorder and in traced. Arguments are
 * named and printed as the kind table says (abi/trace_kinds.def); a
 * string argument is looked up in the aux buffer, and one that was
 * evicted prints as <evicted>, never as other bytes. Pure code: no
 * allocation, no locks; aux lookups are the lock-free reader's.
 */
#ifndef SPOOR_COMMON_TRACE_FORMAT_H
#define SPOOR_COMMON_TRACE_FORMAT_H

#include <stddef.h>

#include "abi/uevent.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"

/*
 * Writes rec as one line, without a newline, NUL-terminated when size > 0,
 * and returns the length the whole line has, like snprintf. The time is
 * (ts - boot_tsc) / tsc_hz seconds from a's header (the raw TSC when
 * tsc_hz is 0). Kinds the table does not know print as kind=N with their
 * first five words; user events print their id, generation and length
 * (abi/uevent.h) and their payload words: ttrace_format_user() decodes
 * them with their definition.
 */
int ttrace_format_record(char *buf, size_t size, const struct ttrace_record *rec,
			 const struct ttrace_area *a);

/*
 * Writes a user event rec (kind user, abi/uevent.h) whose definition is
 * def as its line, fields named and decoded:
 *   [    1.234567] cpu=1 pid=3 tid=3 user:name a=1 s="hi"
 * Returns the whole line's length, like ttrace_format_record(). The
 * caller checks that def is the definition of rec's id and generation.
 */
int ttrace_format_user(char *buf, size_t size, const struct ttrace_record *rec,
		       const struct ttrace_area *a, const struct uevent_def *def);

#endif
