/*
 * cmdline: parses the kernel command line ("key=value key2=value ...")
 * against a table of typed options. Pure code with no kernel dependency:
 * the host unit tests compile this very file.
 *
 * A problem with one word (an unknown key, a missing or bad value) is
 * reported through the warn callback as one line and that word is
 * ignored; the rest of the line is still parsed.
 */
#ifndef SPOOR_INIT_CMDLINE_H
#define SPOOR_INIT_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cmdline_type {
	CMDLINE_UINT,	/* decimal or 0x-hex, within [min, max]; value is uint64_t * */
	CMDLINE_POW2,	/* as CMDLINE_UINT, and a power of two */
	CMDLINE_CHOICE, /* one of choices[]; value is uint32_t *, set to the index */
	CMDLINE_STRING, /* copied into value, a char buffer of size bytes */
};

struct cmdline_option {
	const char *name;
	enum cmdline_type type;
	void *value;
	uint64_t min, max;	    /* CMDLINE_UINT, CMDLINE_POW2 */
	bool zero_off;		    /* CMDLINE_POW2: 0 is also taken, meaning off */
	const char *const *choices; /* CMDLINE_CHOICE, NULL-terminated */
	size_t size;		    /* CMDLINE_STRING */
};

#define CMDLINE_WORD_MAX 128

typedef void (*cmdline_warn_fn)(const char *message);

/* Applies every word of line to the options; returns the number of warnings. */
int cmdline_parse(const char *line, const struct cmdline_option *opts, size_t nopts,
		  cmdline_warn_fn warn);

#endif
