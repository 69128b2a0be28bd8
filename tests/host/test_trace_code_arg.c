/*
 * Format k (abi/trace_kinds.def): a kernel code address printed by the
 * decoder's symbolizer, cut at its first space so that a value never has
 * one, or as hex without a symbolizer or when it does not know the
 * address (common/trace_format.h, ttrace_format_arg_code()).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/trace_decoder.h"
#include "common/trace_format.h"
#include "test.h"

#define KNOWN 0xffffffff80111450ull

/* Knows one address, as the host's symbolizer would name it, with its file and line. */
static bool symbolize(void *ctx, const struct ttrace_frame *f, char *buf, size_t size)
{
	(void)ctx;
	if (f->addr != KNOWN || !f->kernel || f->ret) {
		return false;
	}
	snprintf(buf, size, "ipc_call+0x0 (kernel/ipc/ipc.c:40)");
	return true;
}

TEST(trace_code_arg_names_or_hex)
{
	static const struct {
		bool symbolizer;
		unsigned long long addr;
		const char *text;
	} rows[] = {
	    {true, KNOWN, "ipc_call+0x0"},
	    {true, KNOWN + 8, "0xffffffff80111458"},
	    {false, KNOWN, "0xffffffff80111450"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ttrace_decoder d;
		char buf[TTRACE_FRAME_NAME_MAX];

		memset(&d, 0, sizeof(d));
		d.symbolize = rows[i].symbolizer ? symbolize : NULL;
		ttrace_format_arg_code(buf, sizeof(buf), rows[i].addr, &d);
		CHECK_EQ_STR(buf, rows[i].text, rows[i].text);
	}
}
