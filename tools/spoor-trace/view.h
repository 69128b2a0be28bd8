/*
 * view: a parsed file (file.h) as the shared decoder sees a live trace
 * area, so the host tool prints and names events with the very code the
 * kernel and traced use (common/trace_decoder.h, trace_format.h). The
 * view synthesizes a struct ttrace_header from the file's header and AUX
 * sections and lays the aux bytes out as abi/trace.h's THE AUX BUFFER
 * does: the durable records at position 0, the ring's window [first,
 * last) at aux_durable_size + ((p - aux_durable_size) & aux_mask). It
 * has no rings: events come from the file (tfile_next()).
 *
 * Besides the decoder, the few questions every converter asks: the time
 * of an event in ns since boot, an aux string as the text prints it, and
 * the names of processes and threads.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_VIEW_H
#define SPOOR_TOOLS_SPOOR_TRACE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_decoder.h"
#include "common/trace_format.h"
#include "tools/spoor-trace/file.h"

/* A string argument as the text prints it: 64 bytes, "...", or <bad 0x...>. */
#define TVIEW_STRING_MAX 96

/* The longest process or thread name the names table keeps. */
#define TVIEW_NAME_MAX 64

struct tview_name;

struct tview {
	const struct tfile *file;
	struct ttrace_header hdr;
	struct ttrace_area area;
	struct ttrace_decoder dec;
	struct ttrace_uevent_slot *uevents; /* UEVENT_MAX, the decoder's cache */

	/* Names by pid and by tid (tview_names()), open addressing. */
	struct tview_name *names; /* in the order first seen */
	size_t *names_index;	  /* names_cap slots: entry number + 1, 0 when free */
	size_t names_cap;
	size_t names_len;
};

/*
 * Builds the view of f (which must outlive it). Returns 0 or -ENOMEM.
 * The names table starts empty: tview_names() fills it.
 */
int tview_init(struct tview *v, const struct tfile *f);

void tview_fini(struct tview *v);

/*
 * rec as `trace dump` prints it, without the newline, into buf (size
 * TTRACE_LINE_MAX): what traced writes, cut the way traced cuts it.
 * Returns the length stored.
 */
size_t tview_line(struct tview *v, const struct ttrace_record *rec, char *buf);

/* ts as ns since boot (the raw TSC when tsc_hz is 0; 0 before boot). */
uint64_t tview_ns(const struct tview *v, uint64_t ts);

/*
 * Fills the names table: process names from proc_spawn events and aux
 * PROC records, thread names from aux THREAD records, and each thread's
 * pid from the events it wrote. Returns 0 or -ENOMEM.
 */
int tview_names(struct tview *v);

/* The name of process pid or thread tid (NULL if none is known). */
const char *tview_proc_name(const struct tview *v, uint32_t pid);
const char *tview_thread_name(const struct tview *v, uint32_t tid);

/* The pid thread tid wrote events under; 0 if it wrote none. */
uint32_t tview_thread_pid(const struct tview *v, uint32_t tid);

/*
 * Calls fn for every pid (threads 0) or tid (threads 1) that wrote
 * events, in the order they were first seen.
 */
void tview_each(const struct tview *v, int threads, void (*fn)(void *ctx, uint32_t id), void *ctx);

#endif
