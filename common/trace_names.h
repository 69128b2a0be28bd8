/*
 * trace_names: what trace numbers are called. The kind table generated
 * from abi/trace_kinds.def (name, category, argument names), the category
 * and aux tag names of abi/trace.h, and the parsing and printing of category lists
 * ("mem,sched", "all") for the kernel command line and the shell. Pure
 * code on constant tables, compiled by the kernel, libc and the host tests.
 */
#ifndef SPOOR_COMMON_TRACE_NAMES_H
#define SPOOR_COMMON_TRACE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_values.h"

struct ttrace_kind_info {
	const char *name;  /* "mem_pf" */
	const char *args;  /* "vaddr:x rip:x err:x outcome:u": see abi/trace_kinds.def */
	uint64_t category; /* one TTRACE_CAT() bit */
};

/* The kind's entry of the table, or NULL for a number no kind has. */
const struct ttrace_kind_info *ttrace_kind_info(uint32_t kind);

/* The name of category bit `bit` ("mem" for TTRACE_CAT_BIT_MEM), or NULL. */
const char *ttrace_category_name(uint32_t bit);

/*
 * The name of aux tag `tag` (TTRACE_AUX_*): for one record ("proc"), or
 * for the set of them when plural ("procs"); NULL for a number no tag has.
 */
const char *ttrace_aux_tag_name(uint32_t tag, bool plural);

/*
 * Parses a list of category names separated by commas or spaces, "all"
 * standing for every category, into *mask (0 for an empty list). Returns
 * 0, or -EINVAL with *bad and *bad_len set to the first word that is not
 * a category; *mask is then left alone.
 */
int ttrace_category_parse(const char *list, uint64_t *mask, const char **bad, size_t *bad_len);

/*
 * Writes mask as "mem,sched" ("none" for 0; bits no category has as one
 * last hexadecimal word), NUL-terminated when size > 0, and returns the
 * length the whole text has, like snprintf.
 */
int ttrace_category_format(uint64_t mask, char *buf, size_t size);

/* One argument of a kind's list. */
struct ttrace_arg {
	const char *name; /* not NUL-terminated: name_len bytes */
	size_t name_len;
	char format;			    /* 'x', 'u', 'd', 's', 'y' or 'k' */
	const struct ttrace_values *values; /* the names of its values (=LIST), or NULL */
};

/*
 * Takes the next argument off *spec (an args string of the table) and
 * advances *spec. Returns 1, 0 at the end of the list, or -EINVAL for a
 * word that is not name:format or name:format=LIST with a known format
 * (LIST only after u or d) and a known list.
 */
int ttrace_arg_next(const char **spec, struct ttrace_arg *arg);

#endif
