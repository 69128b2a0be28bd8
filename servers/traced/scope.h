/*
 * scope: the processes a SELF caller may read: itself and its
 * descendants, as the kernel's aux records of spawns (tag PROC) tell them.
 * Bounded: a descendant beyond SCOPE_MAX, or whose spawn record the aux
 * ring has evicted, is left out (its events are not shown, never others').
 */
#ifndef SPOOR_TRACED_SCOPE_H
#define SPOOR_TRACED_SCOPE_H

#include <stdbool.h>
#include <stdint.h>
#include "servers/traced/request.h"

#define SCOPE_MAX 256

struct scope {
	uint32_t n;
	uint32_t pid[SCOPE_MAX];
};

/* The scope of pid: 0, or -E* if the aux buffer could not be read. */
int scope_build(uint32_t pid, struct scope *s);

/* Whether pid is in the scope. */
bool scope_has(const struct scope *s, uint32_t pid);

/* The scope a request may read: NULL for READ and CONTROL (everything), else built. 0 or -E*. */
int scope_request(const struct request *req, const struct scope **out);

#endif
