/*
 * strerror: the texts of abi/errno.def, the single list of errors, and
 * errno itself. The switch is generated from the list, so a new error has
 * its text here as soon as it is added there.
 */
#include <errno.h>
#include <string.h>

#include "common/format.h"

int errno;

/* Room for "unknown error -2147483648". */
static char unknown[32];

/*
 * Returns the text of e, "success" for 0, or "unknown error N" for a
 * number not in the list, in a buffer the next such call overwrites.
 */
char *strerror(int e)
{
	switch (e) {
	case 0:
		return "success";
#define ERRNO(name, value, text)                                                                   \
	case name:                                                                                 \
		return text;
#include "abi/errno.def"
#undef ERRNO
	}
	format_snprintf(unknown, sizeof(unknown), "unknown error %d", e);
	return unknown;
}
