/*
 * trace_format: one event as the line people read and tools parse,
 *
 *   [    1.234567] cpu=1 pid=3 tid=3 comm=memtest mem_pf vaddr=0x400000 rip=0x401020 err=0x6 ...
 *
 * the same in the kernel's flight recorder and in traced. Arguments are
 * named and printed as the kind table says (abi/trace_kinds.def); a
 * string argument is looked up in the aux buffer, and one that was
 * evicted prints as <evicted>, never as other bytes; syscall names and
 * user-event definitions come through a decoder (trace_decoder.h). Pure
 * code: no allocation, no locks; aux lookups are the lock-free reader's.
 */
#ifndef SPOOR_COMMON_TRACE_FORMAT_H
#define SPOOR_COMMON_TRACE_FORMAT_H

#include <stddef.h>

#include "common/trace_decoder.h"
#include "common/trace_ring.h"

/*
 * The longest line an event makes: the prefix, "user:" and a 63-character
 * name, 32 fields of " name=" with 31-character names, and 200 payload
 * bytes escaped as \xNN at most: about 2100 bytes. Readers cut a line at
 * TTRACE_LINE_MAX - 1 bytes.
 */
#define TTRACE_LINE_MAX	      2560
#define TTRACE_FRAME_NAME_MAX 96 /* a stack frame's name: "function+0x12 (file.c:40)" */

/*
 * Writes rec as one line, without a newline, NUL-terminated when size > 0,
 * and returns the length the whole line has, like snprintf. The time is
 * (ts - boot_tsc) / tsc_hz seconds from the area's header (the raw TSC
 * when tsc_hz is 0); names and strings come through decoder d. Kinds the
 * table does not know print as kind=N with their first five words. A user
 * event prints decoded with its definition,
 *   [    1.234567] cpu=1 pid=3 tid=3 comm=demo user:name a=1 s="hi"
 * or, when d has none for it, raw: its id, generation and length
 * (abi/uevent.h) and its payload words.
 */
int ttrace_format_event(char *buf, size_t size, const struct ttrace_record *rec,
			struct ttrace_decoder *d);

/*
 * The aux string at ref as a line shows it: its first 64 bytes with what
 * would break the line ('"', '\\', bytes outside printable ASCII) as '?'
 * and "..." after a longer one. Returns 1 for a string (a line quotes
 * it), or 0 when buf says why there is none: "<evicted>", or "<bad 0x..>"
 * for a reference to no record. NUL-terminated, cut to size.
 */
int ttrace_format_aux_string(char *buf, size_t size, const struct ttrace_area *a, uint64_t ref);

/*
 * As ttrace_format_aux_string(), for ref, a string argument of event rec:
 * the name of a spawn whose record the kernel moved to keep it (abi/trace.h,
 * AW1) is the same name found by the spawned pid.
 */
int ttrace_format_arg_string(char *buf, size_t size, const struct ttrace_record *rec, uint64_t ref,
			     struct ttrace_decoder *d);

/*
 * A kernel code address, an argument of format k (abi/trace_kinds.def),
 * into buf: "function+0x12" when d's symbolizer knows it, else hex. Named
 * as the address itself, not as a return address: a function's entry
 * names that function. A value has no spaces, so a host symbolizer's
 * " (file.c:40)" is left out: the line is the one traced's dump prints.
 */
void ttrace_format_arg_code(char *buf, size_t size, uint64_t addr, struct ttrace_decoder *d);

/*
 * The lines that describe a dump, each ending in '\n' (abi/traced.h DATA):
 *   # lost N events on cpu C
 *   # end of dump: N events, L lost
 * NUL-terminated when size > 0; they return the whole line's length.
 */
int ttrace_format_lost(char *buf, size_t size, uint32_t cpu, uint64_t n);
int ttrace_format_end(char *buf, size_t size, uint64_t events, uint64_t lost);

#endif
