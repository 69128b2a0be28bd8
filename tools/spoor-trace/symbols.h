/*
 * symbols: names for the addresses of call stacks, from the build's ELF
 * files through elfutils' libdwfl (DWARF line tables, ELF symbol tables):
 * build/kernel.elf for the kernel's addresses, build/bin/NAME or
 * build/tests/bin/NAME for a program's, NAME being the program's name from
 * its spawn record. The build directory is the one spoor-trace was built
 * in (it lives in build/host/), or $SPOOR_BUILD. Each file is opened
 * once, on its first address; a program without a file names nothing.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_SYMBOLS_H
#define SPOOR_TOOLS_SPOOR_TRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/trace_decoder.h"

struct symbols;

/* A symbolizer for the build at build_dir (NULL: find it as above); NULL if out of memory. */
struct symbols *symbols_open(const char *build_dir);
void symbols_close(struct symbols *s);

/* What a frame resolves to: all NULL/0 when nothing does. */
struct symbol {
	const char *function; /* valid until symbols_close() */
	uint64_t offset;      /* addr - the function's start */
	const char *file;     /* the source file's name without its folders, or NULL */
	int line;
};

/* Resolves f (for a return address, the call before it). False if nothing names it. */
bool symbols_lookup(struct symbols *s, const struct ttrace_frame *f, struct symbol *out);

/*
 * The decoder's symbolize hook (common/trace_decoder.h), ctx a struct
 * symbols: "function+0x12 (file.c:40)".
 */
bool symbols_format(void *ctx, const struct ttrace_frame *f, char *buf, size_t size);

#endif
