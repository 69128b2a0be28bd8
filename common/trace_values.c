/*
 * trace_values: the value lists (see trace_values.h), each generated from
 * its abi/ list; nothing here is kept in sync by hand.
 */
#include "common/trace_values.h"

#include "abi/errno.h"
#include "abi/proc.h"
#include "abi/trace.h"
#include "abi/trace_func.h"

#define VALUE(value, NAME, name) {value, #name},

static const struct ttrace_value pf_outcomes[] = {TTRACE_PF_OUTCOMES(VALUE)};
static const struct ttrace_value copy_dirs[] = {TTRACE_COPY_DIRS(VALUE)};
static const struct ttrace_value thread_states[] = {THREAD_STATES(VALUE)};
static const struct ttrace_value prof_modes[] = {TTRACE_PROF_MODES(VALUE)};
static const struct ttrace_value graph_ends[] = {TTRACE_GRAPH_ENDS(VALUE)};

#undef VALUE

/* As a syscall returns them: -EPERM is -1. */
static const struct ttrace_value errnos[] = {
#define ERRNO(NAME, value, text) {-(value), "-" #NAME},
#include "abi/errno.def"
#undef ERRNO
};

#define LIST(name, values, success)                                                                \
	{                                                                                          \
		name, values, sizeof(values) / sizeof(values[0]), success                          \
	}

static const struct ttrace_values lists[] = {
    LIST("pf_outcome", pf_outcomes, NULL),     LIST("copy_dir", copy_dirs, NULL),
    LIST("thread_state", thread_states, NULL), LIST("errno", errnos, "ok"),
    LIST("prof_mode", prof_modes, NULL),       LIST("graph_end", graph_ends, NULL),
};

#define NLISTS (sizeof(lists) / sizeof(lists[0]))

const struct ttrace_values *ttrace_values_find(const char *name, size_t len)
{
	for (uint32_t i = 0; i < NLISTS; i++) {
		size_t k = 0;

		while (k < len && lists[i].name[k] == name[k]) {
			k++;
		}
		if (k == len && !lists[i].name[k]) {
			return &lists[i];
		}
	}
	return NULL;
}

const struct ttrace_values *ttrace_values_at(uint32_t i)
{
	return i < NLISTS ? &lists[i] : NULL;
}

const char *ttrace_value_name(const struct ttrace_values *l, int64_t value)
{
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->v[i].value == value) {
			return l->v[i].name;
		}
	}
	return NULL;
}
