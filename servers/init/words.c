/*
 * words: how the shell and init's keeper say a process ended and how long
 * the machine has been up (words.h says why there is one wording each).
 */
#include <spoor.h>
#include <stdio.h>

#include "words.h"

#define NS_PER_MS 1000000ull
#define MS_PER_S  1000ull

const char *exit_words(int64_t status, char *buf, size_t size)
{
	if (status == EXIT_KILLED) {
		snprintf(buf, size, "killed");
	} else if (status == EXIT_NO_MEMORY) {
		snprintf(buf, size, "killed: out of memory");
	} else if (EXIT_IS_FAULT(status)) {
		snprintf(buf, size, "killed by a fault (vector %lld)", (long long)(status & 0xff));
	} else {
		snprintf(buf, size, "exited with status %lld", (long long)status);
	}
	return buf;
}

const char *uptime_words(uint64_t ns, char *buf, size_t size)
{
	uint64_t ms = ns / NS_PER_MS;

	snprintf(buf, size, "up %llu.%03llu s", (unsigned long long)(ms / MS_PER_S),
		 (unsigned long long)(ms % MS_PER_S));
	return buf;
}
