/*
 * trace_values: the names of argument values, so that a reader sees
 * `outcome=cow` and `result=-ETIMEDOUT`, not 1 and -110. Each list is
 * generated from the one abi/ list of its values: mem_pf's outcomes
 * (TTRACE_PF_OUTCOMES, abi/trace.h), mem_copy's directions
 * (TTRACE_COPY_DIRS), thread states (THREAD_STATES, abi/proc.h) and the
 * error numbers (abi/errno.def, named "-ENAME" for the value -ENAME a
 * syscall returns). An argument of abi/trace_kinds.def takes a list by
 * name ("outcome:u=pf_outcome"); the event line (trace_format.c) prints a
 * value's name and the CTF writer declares each list as an enum, both
 * from these tables. Pure code on constant tables.
 */
#ifndef SPOOR_COMMON_TRACE_VALUES_H
#define SPOOR_COMMON_TRACE_VALUES_H

#include <stddef.h>
#include <stdint.h>

struct ttrace_value {
	int64_t value;
	const char *name;
};

struct ttrace_values {
	const char *name; /* as the args list says it: "pf_outcome" */
	const struct ttrace_value *v;
	uint32_t n;
	/*
	 * A list of errors (errno) names what is no error too, for writers
	 * that name every value (CTF's enums): every value from 0 up takes
	 * this name, as a system call that succeeded returns a count or an
	 * id there. NULL for the other lists.
	 */
	const char *success;
};

/* The list called by the len bytes at name, or NULL if none is. */
const struct ttrace_values *ttrace_values_find(const char *name, size_t len);

/* List i (0, 1, ...), or NULL past the last: for writers that declare them all. */
const struct ttrace_values *ttrace_values_at(uint32_t i);

/* The name of value in list l, or NULL for a value it does not name. */
const char *ttrace_value_name(const struct ttrace_values *l, int64_t value);

#endif
