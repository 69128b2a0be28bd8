/*
 * kframes: names for the kernel's stack frames in traced's text dumps,
 * from the symbol table the kernel links in (sys_ksym), as `trace top`
 * and the panic block's stack walk name them. User frames stay hex: the
 * guest has no symbols for programs (the host's spoor-trace names them).
 */
#ifndef SPOOR_TRACED_KFRAMES_H
#define SPOOR_TRACED_KFRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/trace_decoder.h"

/*
 * The decoder's symbolize hook (common/trace_decoder.h): writes
 * "function+0x12" for a kernel frame the table holds and returns true;
 * false (print it as hex) for a user frame or an address of no function.
 * ctx is unused. Makes one system call.
 */
bool kframes_name(void *ctx, const struct ttrace_frame *frame, char *buf, size_t size);

#endif
