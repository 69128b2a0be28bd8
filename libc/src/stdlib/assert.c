/*
 * assert: the failure half of assert.h's macro. The message names the
 * place and the condition; __libc_fatal() prefixes the program's name.
 */
#include <assert.h>

#include "common/format.h"
#include "libc/src/internal.h"

#define ASSERT_LINE 200

void __assert_fail(const char *cond, const char *file, int line, const char *func)
{
	char msg[ASSERT_LINE];

	format_snprintf(msg, sizeof(msg), "%s:%d: %s: assertion '%s' failed", file, line, func,
			cond);
	__libc_fatal(msg);
}
