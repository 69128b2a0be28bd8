/*
 * kframes: see kframes.h.
 */
#include <spoor.h>
#include <stdio.h>

#include "servers/traced/kframes.h"

#define KSYM_NAME_MAX 64 /* the longest kernel function name kept; a longer one prints as hex */

bool kframes_name(void *ctx, const struct ttrace_frame *frame, char *buf, size_t size)
{
	char name[KSYM_NAME_MAX];
	/*
	 * A return address's call is the instruction before it, which may end
	 * the function (a call that never returns): name the function that
	 * holds the call, as the host's symbolizer does.
	 */
	uint64_t back = frame->ret && frame->addr ? 1 : 0;

	(void)ctx;
	if (!frame->kernel) {
		return false;
	}
	long offset = sys_ksym(frame->addr - back, name, sizeof(name));
	if (offset < 0) {
		return false;
	}
	snprintf(buf, size, "%s+0x%lx", name, (unsigned long)offset + back);
	return true;
}
