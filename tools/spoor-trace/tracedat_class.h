/*
 * tracedat_class: the event formats of a trace.dat (tracedat.h) and the
 * records written in them. Each class of fields.h is one ftrace event:
 *   - every kind of abi/trace_kinds.def has one, system "spoor", ID its
 *     kind number, whether the trace holds its events or not, its fields
 *     the kind's args (x and u as unsigned long long, d as long long,
 *     s as a __data_loc string holding what the text shows, y as the
 *     number and a string "name");
 *   - sched_switch and sched_wakeup are in system "sched", where Linux
 *     has them and where trace-cmd's and KernelShark's scheduling code
 *     looks for them; they carry Linux's fields first (prev_comm prev_pid
 *     prev_prio prev_state next_comm next_pid next_prio; comm pid prio
 *     target_cpu, which is Spoor's cpu of sched_wakeup), then Spoor's
 *     other fields, one whose name Linux's took with "spoor_" in front
 *     (spoor_prev_state). prev_state is Linux's task
 *     state, which trace-cmd prints as a letter and KernelShark reads to
 *     tell a preempted task from a sleeping one: running and ready are
 *     runnable (0), blocked and sleeping wait (S, 1), exited is X; the
 *     pids are ftrace's (tracedat_tasks.h), the prio is 120, what Linux
 *     shows for an ordinary task, since Spoor has no priorities;
 *   - each user-event definition the events use is an event of system
 *     "user_events", as Linux's user_events are, typed from the
 *     definition (integers of their size and sign, byte arrays, strings);
 *     a user event without a usable definition is spoor's "user" with
 *     event, gen, len and its data words as text; an unknown kind is
 *     spoor's kind_N. These get IDs after the table's, as they are met.
 * The print fmt shows a field as the text does: hex as 0x..., a value of
 * a named list (u=LIST) as its name where the list has no negative
 * values (libtraceevent's __print_symbolic), strings and bytes as text.
 * Names outside [A-Za-z0-9_] get '_' for the characters format files
 * cannot hold.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_CLASS_H
#define SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/fields.h"
#include "tools/spoor-trace/tracedat_tasks.h"

/* The fields a class adds to Spoor's: Linux's seven of sched_switch. */
#define TDAT_FIELDS_MAX (TFIELDS_MAX + 7)

/* ftrace's common fields: type, flags, preempt_count and pid, 8 bytes. */
#define TDAT_COMMON_SIZE 8

/*
 * The most bytes of a record, and of its fixed part: what a page of
 * 4096 bytes holds after its header, a record's header and a time
 * extend, with room for the count of a loss.
 */
#define TDAT_RECORD_MAX	      4000
#define TDAT_RECORD_FIXED_MAX (TDAT_RECORD_MAX - TDAT_FIELDS_MAX)

/* Where a field's value comes from. */
#define TDAT_SRC_SPOOR 0 /* Spoor's field from */
#define TDAT_SRC_COMM  1 /* the comm of the thread Spoor's field from names */
#define TDAT_SRC_PID   2 /* that thread's ftrace pid */
#define TDAT_SRC_PRIO  3 /* Linux's priority of an ordinary task */
#define TDAT_SRC_STATE 4 /* Linux's task state for the thread state in Spoor's field from */

struct tdat_field {
	char name[TFIELD_NAME_MAX + 1];
	uint32_t src;  /* TDAT_SRC_* */
	uint32_t from; /* the Spoor field (tfields_get()'s index) it is made from */
	uint32_t type; /* TFIELD_* as written (a comm is TFIELD_BYTES) */
	uint32_t offset, size;
	const struct ttrace_values *values;
};

struct tdat_class {
	uint32_t id;
	uint32_t type, kind; /* the fields.h class it writes */
	uint64_t ukey;
	const char *system;
	char name[TCLASS_NAME_MAX + 1];
	size_t n;
	struct tdat_field f[TDAT_FIELDS_MAX];
	uint32_t fixed; /* bytes of the common and fixed fields; strings follow */
};

struct tdat_classes {
	struct tdat_class *c;
	size_t n, cap;
	uint32_t next_id;
	struct tfields scratch; /* the layouts' fields, no values */
};

/* A table holding a class for every kind. Returns 0 or -ENOMEM. */
int tdat_classes_init(struct tdat_classes *cs, struct tview *v);
void tdat_classes_fini(struct tdat_classes *cs);

/*
 * The class of event rec, made when it is the first of its class, and
 * its fields with their values into *tf. Returns the class's index,
 * -ENOMEM, or -E2BIG when ftrace's 16-bit event IDs are used up.
 */
int tdat_class_of(struct tdat_classes *cs, struct tview *v, const struct ttrace_record *rec,
		  struct tfields *tf);

/* Writes the low bytes of v, little-endian, as trace.dat's numbers are. */
void tdat_put(FILE *out, uint64_t v, uint32_t bytes);

/*
 * The EVENT FORMATS part of the file: the number of systems, and each
 * system's name, its number of events and their format files. Returns 0
 * or -EIO.
 */
int tdat_formats_write(const struct tdat_classes *cs, FILE *out);

/*
 * Event rec of class c (tf its fields from tdat_class_of()) as an ftrace
 * record into buf, at most max bytes (strings cut to fit; max leaves
 * room for c->fixed and a byte a string). pid is its common_pid.
 * Returns the record's length.
 */
size_t tdat_record(const struct tdat_class *c, const struct tfields *tf, const struct tdat_tasks *t,
		   uint32_t pid, uint8_t *buf, size_t max);

#endif
