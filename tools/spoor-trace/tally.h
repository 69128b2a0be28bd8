/*
 * tally: counts by string, for the answers (report.c, flame.c): a table
 * of keys, each with two counters, that grows as keys come, and hands
 * its rows back as an array to sort.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TALLY_H
#define SPOOR_TOOLS_SPOOR_TRACE_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct tally_row {
	char *key;
	uint64_t count[2];
};

struct tally {
	struct tally_row *rows; /* in the order first seen */
	size_t len, cap;
	size_t *index; /* slots: row number + 1, 0 when free */
	size_t slots;
};

/* Adds n to counter which (0 or 1) of key, making its row. Its row number, or -ENOMEM. */
long tally_add(struct tally *t, const char *key, int which, uint64_t n);

void tally_free(struct tally *t);

#endif
