/*
 * aux_names: the names the kernel writes into the aux ring, under
 * aux_lock, and the program names kept there while a dump may need them.
 */
#ifndef SPOOR_TRACE_AUX_NAMES_H
#define SPOOR_TRACE_AUX_NAMES_H

#include <stdint.h>

#include "trace/name_holds.h"

/* [aux_lock] The program names kept; ttrace_init() sets it up (kernel/trace only). */
extern struct name_holds names;

/*
 * Records a name in the aux buffer: tag TTRACE_AUX_PROC with a pid (and
 * parent, abi/trace.h), or TTRACE_AUX_THREAD with a tid. A process's name
 * is kept in the aux ring while a dump may need it (trace/name_holds.h),
 * until ttrace_proc_freed() and its events' leaving the rings. Returns
 * the reference (0 on failure).
 */
uint64_t ttrace_aux_name(uint16_t tag, uint64_t id, const char *name);

/* The process pid is freed: no event of it is written any more. */
void ttrace_proc_freed(uint32_t pid);

#endif
