/*
 * scope: which processes a SELF caller may read (scope.h). The kernel
 * writes an aux record at every spawn, tag PROC with id pid | parent pid
 * << 32 (abi/trace.h). They are in spawn order except for names the
 * kernel moved to keep them (AW1), which may come after their children's:
 * passes over them go on until one adds no process. The walks read the
 * ring in place, without copying it.
 */
#include "common/trace_aux.h"
#include "abi/traced.h"
#include "servers/traced/request.h"
#include "servers/traced/scope.h"
#include "servers/traced/state.h"

bool scope_has(const struct scope *s, uint32_t pid)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->pid[i] == pid) {
			return true;
		}
	}
	return false;
}

static void add(struct scope *s, uint32_t pid)
{
	if (s->n < SCOPE_MAX && !scope_has(s, pid)) {
		s->pid[s->n++] = pid;
	}
}

static bool descendant(void *ctx, const struct ttrace_aux_record *rec, uint64_t pos)
{
	struct scope *s = ctx;

	(void)pos;
	if (rec->tag == TTRACE_AUX_PROC && scope_has(s, (uint32_t)(rec->id >> 32))) {
		add(s, (uint32_t)rec->id);
	}
	return true;
}

int scope_build(uint32_t pid, struct scope *s)
{
	uint32_t before;
	int err;

	s->n = 0;
	add(s, pid);
	do {
		before = s->n;
		err = ttrace_aux_walk(&traced.area, descendant, s);
	} while (!err && s->n != before);
	return err;
}

int scope_request(const struct request *req, const struct scope **out)
{
	static struct scope s; /* one request at a time */

	*out = NULL;
	if (req->level >= TRACED_LEVEL_READ) {
		return 0;
	}
	int err = scope_build(req->pid, &s);
	*out = &s;
	return err;
}
