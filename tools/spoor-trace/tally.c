/*
 * tally: see tally.h. Open addressing by FNV-1a, at most half full.
 */
#include "tools/spoor-trace/tally.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"

static size_t slot_of(const struct tally *t, const char *key)
{
	size_t i = ttrace_fnv1a(TTRACE_FNV_OFFSET, key, strlen(key)) & (t->slots - 1);

	while (t->index[i] && strcmp(t->rows[t->index[i] - 1].key, key)) {
		i = (i + 1) & (t->slots - 1);
	}
	return i;
}

static int grow(struct tally *t)
{
	size_t slots = t->slots ? t->slots * 2 : 64;
	size_t *index = calloc(slots, sizeof(*index));
	struct tally_row *rows = realloc(t->rows, slots / 2 * sizeof(*rows));

	if (!index || !rows) {
		free(index);
		if (rows) {
			t->rows = rows;
		}
		return -ENOMEM;
	}
	free(t->index);
	t->rows = rows;
	t->cap = slots / 2;
	t->index = index;
	t->slots = slots;
	for (size_t r = 0; r < t->len; r++) {
		t->index[slot_of(t, t->rows[r].key)] = r + 1;
	}
	return 0;
}

long tally_add(struct tally *t, const char *key, int which, uint64_t n)
{
	if (t->len == t->cap && grow(t)) {
		return -ENOMEM;
	}
	size_t i = slot_of(t, key);

	if (!t->index[i]) {
		char *copy = strdup(key);
		if (!copy) {
			return -ENOMEM;
		}
		t->rows[t->len] = (struct tally_row){.key = copy};
		t->index[i] = ++t->len;
	}
	t->rows[t->index[i] - 1].count[which] += n;
	return (long)t->index[i] - 1;
}

void tally_free(struct tally *t)
{
	for (size_t r = 0; r < t->len; r++) {
		free(t->rows[r].key);
	}
	free(t->rows);
	free(t->index);
	memset(t, 0, sizeof(*t));
}
