/*
 * ctf: a saved trace as a CTF 1.8 trace (https://diamon.org/ctf/v1.8.3/)
 * for babeltrace2 and Trace Compass: a TSDL `metadata` file and one
 * stream file per CPU, `stream_C`.
 *
 * The mapping:
 *   - one stream class; each CPU's events are one stream instance, its
 *     packets in one file;
 *   - the trace: a UUID made from the file (its checksum: the same file,
 *     the same UUID), and its name (the file's, without .spoor) as the
 *     environment's hostname, which readers take for the trace's name
 *     (babeltrace2: `in trace "demo"`), and as trace_name;
 *   - one event class per kind (abi/trace_kinds.def), its fields the
 *     kind's args: x, u, d as 64-bit integers (x in base 16; a u or d with
 *     a list of value names, =LIST, as an enum of 64-bit integers mapping
 *     each name of common/trace_values.h to its value), s as a
 *     string holding what the text shows, y as the integer and a string
 *     `name`; one class `user:NAME` per user-event definition the events
 *     use, typed from the definition (integers of their size and sign,
 *     strings, unsigned char[N] and structs as byte arrays, dynamic bytes
 *     as the text's hex); `user` for user events without a definition
 *     (or whose payload does not fit it), `kind_N` for unknown kinds;
 *   - a kind's class ends with its call stack (stack_len, stack[], the
 *     addresses, and stack_names) only when some event of that kind in
 *     the trace carries one: with stacks off, no class has stack fields;
 *     an event without a stack in a class with them has stack_len 0;
 *   - event header: the class id (32 bits) and the raw TSC (64 bits,
 *     mapped to the clock); event context: cpu, pid, tid and comm (the
 *     program's name, as the text shows it);
 *   - the clock `spoor_tsc`: frequency tsc_hz (1 GHz when the file does
 *     not know it), and an offset of minus boot_tsc, so readers show ns
 *     since boot; not absolute;
 *   - packet context: timestamp_begin/end, content_size, packet_size,
 *     packet_seq_num, events_discarded, cpu_id. A loss marker ends the
 *     CPU's packet, and the next packet ends with the first event kept
 *     after it; that packet's events_discarded counts the loss, so
 *     babeltrace2 reports it between the last event before and that one,
 *     ending where abi/trace_file.h LOSS PLACEMENT puts it. A stream's first packet always
 *     counts 0 (an empty one when the stream starts with a loss), since
 *     readers take the first packet's count as the starting point.
 * Timestamps within a stream never go backwards (CTF requires it): an
 * event older than the one before it on its CPU takes that one's time.
 * Field names that are TSDL keywords or start with '_' get one '_' more,
 * which readers strip.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_CTF_H
#define SPOOR_TOOLS_SPOOR_TRACE_CTF_H

#include <stddef.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/*
 * Writes v's events as a CTF trace named name: the metadata text to
 * metadata, CPU c's stream to streams[c] (v's num_cpus of them). Returns
 * 0, -ENOMEM, or -EIO if a stream failed.
 */
int ctf_convert(struct tview *v, const char *name, FILE *metadata, FILE *const *streams);

/*
 * Writes the trace into directory dir (made if missing). A directory that
 * holds anything but a trace's metadata and stream_* files is left alone:
 * -EEXIST, with why naming the file in the way. Other errors: -errno of
 * the failing call, with why naming the path. why_size > 0.
 */
int ctf_convert_dir(struct tview *v, const char *name, const char *dir, char *why, size_t why_size);

#endif
