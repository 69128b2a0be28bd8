/*
 * User-defined trace events as every side sees them: the description text
 * a program registers, the definition the kernel keeps after parsing it,
 * and the payload layout a write must follow. common/uevent_parse.c is
 * the one parser and common/uevent_payload.c the one payload check and
 * printer, shared by the kernel, traced, the shell and the host tests
 * (the types' table is common/uevent_types.c). The grammar is today's
 * Linux user_events grammar, narrowed where Linux is vague (see
 * REFUSED).
 *
 * GRAMMAR. A description is at most UEVENT_DESC_MAX bytes of printable
 * ASCII, spaces and tabs (it ends early at a NUL byte):
 *
 *   description := [ws] name [ws fields] [ws]
 *   fields      := field { [ws] ';' [ws] field }
 *   field       := <empty> | type ws fname | 'struct' ws TYPE ws fname ws N
 *   type        := u8 | s8 | u16 | s16 | u32 | s32 | u64 | s64
 *                | char | unsigned char | short | unsigned short
 *                | int | unsigned int
 *                | char[N] | unsigned char[N]
 *                | __data_loc char[] | __data_loc unsigned char[]
 *                | __rel_loc char[] | __rel_loc unsigned char[]
 *   N           := decimal 1..UEVENT_ARRAY_MAX without a leading zero,
 *                  or 0x / 0X and hexadecimal digits; inside brackets,
 *                  at most UEVENT_ARRAY_TEXT_MAX characters (Linux's
 *                  limit: "char[0x0014]" is good, "char[0x00014]" not)
 *   ws          := one or more spaces or tabs (between the words of a
 *                  type too: "unsigned  char" is "unsigned char")
 *
 * name is a C identifier of at most UEVENT_NAME_MAX characters; it ends
 * at the first space or tab, as in Linux, so "ev;u32 a" is a bad name.
 * fname and TYPE are C identifiers of at most UEVENT_FIELD_NAME_MAX
 * characters; field names are distinct. Empty fields (";;", a trailing
 * ';') are skipped. An event may have no fields. The canonical text
 * (uevent_def_format) is "name" or "name f1;f2;..." with one space
 * between words, and parses back to the same definition.
 *
 * REFUSED, with the reason the parser gives: flags after ':' ("name:BPF";
 * Linux knows none we support) and an empty flags part ("name:"), so an
 * event has one spelling; long and unsigned long (their size depends on
 * the writer); a size after a field that is not a struct; a struct
 * without a size or with a size of 0 or over UEVENT_ARRAY_MAX; char[0],
 * char[], arrays over UEVENT_ARRAY_MAX, array sizes that are not N; any
 * other type (u8[4], __data_loc u32, signed char, ...); names that are
 * not C identifiers; a description, a field count or a fixed part over
 * its limit.
 *
 * PAYLOAD. What one write carries: the fixed part, fixed_size bytes, then
 * the bytes that dynamic fields point at. Fields sit in the order given,
 * packed: each field's offset is the sum of the sizes before it, with no
 * alignment padding (as Linux user_events lays them out). Little-endian.
 * A dynamic field (__data_loc / __rel_loc) takes UEVENT_LOC_SIZE bytes in
 * the fixed part holding a location, UEVENT_LOC_MAKE(size, offset): the
 * data's length in the high 16 bits, its offset in the low 16. For
 * __data_loc the offset counts from the start of the payload, for
 * __rel_loc from the end of the location word itself. A write carries
 * fixed_size..UEVENT_PAYLOAD_MAX bytes; each location must lie inside
 * them, and a string (the char[] forms) must be at least one byte long
 * and hold a NUL. A fixed char[N] needs no NUL: readers stop at the first
 * NUL or after N bytes.
 *
 * ERRORS of the parser: -EINVAL for any grammar error above; -E2BIG for a
 * description over UEVENT_DESC_MAX, over UEVENT_FIELDS_MAX fields, or a
 * fixed part over UEVENT_PAYLOAD_MAX; -ENAMETOOLONG for an event name
 * over UEVENT_NAME_MAX or a field or struct type name over
 * UEVENT_FIELD_NAME_MAX. Of a payload check: -EINVAL for fewer than
 * fixed_size bytes, -E2BIG for more than UEVENT_PAYLOAD_MAX, -EFAULT for a
 * location outside the payload or a string that is empty or has no NUL.
 */
#ifndef SPOOR_ABI_UEVENT_H
#define SPOOR_ABI_UEVENT_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"

#define UEVENT_DESC_MAX	      512  /* bytes of description text, NUL not counted */
#define UEVENT_NAME_MAX	      63   /* characters of an event name */
#define UEVENT_FIELD_NAME_MAX 31   /* characters of a field name or struct type */
#define UEVENT_FIELDS_MAX     32   /* fields of one event */
#define UEVENT_ARRAY_MAX      1024 /* N of char[N], SIZE of a struct (Linux's limit) */
#define UEVENT_ARRAY_TEXT_MAX 6	   /* characters of N inside brackets (Linux's limit) */

/*
 * A user event is one trace event of kind user: data word 0 is the event
 * id, the other words carry the payload. So the payload limit binds before
 * UEVENT_ARRAY_MAX: char[1024] is good grammar but too big to write.
 */
#define UEVENT_PAYLOAD_MAX ((TTRACE_EVENT_WORDS_MAX - 1) * (uint32_t)sizeof(uint64_t))

/* The location word of a dynamic field. */
#define UEVENT_LOC_SIZE		   4u
#define UEVENT_LOC_SIZE_SHIFT	   16
#define UEVENT_LOC_OFFSET_MASK	   0xffffu
#define UEVENT_LOC_MAKE(size, off) ((uint32_t)(size) << UEVENT_LOC_SIZE_SHIFT | (uint32_t)(off))
#define UEVENT_LOC_DATA_SIZE(loc)  ((uint32_t)(loc) >> UEVENT_LOC_SIZE_SHIFT)
#define UEVENT_LOC_DATA_OFF(loc)   ((uint32_t)(loc)&UEVENT_LOC_OFFSET_MASK)

/*
 * Field types: X(value, NAME, "spelling", size) gives UEVENT_TYPE_NAME =
 * value. size is the bytes the field takes in the fixed part, 0 when the
 * description gives it (N of an array, SIZE of a struct). An array's
 * spelling has "[]" where N goes. Numbers are append-only; 0 is no type.
 */
#define UEVENT_TYPES(X)                                                                            \
	X(1, U8, "u8", 1)                                                                          \
	X(2, S8, "s8", 1)                                                                          \
	X(3, U16, "u16", 2)                                                                        \
	X(4, S16, "s16", 2)                                                                        \
	X(5, U32, "u32", 4)                                                                        \
	X(6, S32, "s32", 4)                                                                        \
	X(7, U64, "u64", 8)                                                                        \
	X(8, S64, "s64", 8)                                                                        \
	X(9, CHAR, "char", 1) /* signed */                                                         \
	X(10, UCHAR, "unsigned char", 1)                                                           \
	X(11, SHORT, "short", 2)                                                                   \
	X(12, USHORT, "unsigned short", 2)                                                         \
	X(13, INT, "int", 4)                                                                       \
	X(14, UINT, "unsigned int", 4)                                                             \
	X(15, CHAR_ARRAY, "char[]", 0)                                                             \
	X(16, UCHAR_ARRAY, "unsigned char[]", 0)                                                   \
	X(17, DATA_LOC_STRING, "__data_loc char[]", UEVENT_LOC_SIZE)                               \
	X(18, DATA_LOC_UBYTES, "__data_loc unsigned char[]", UEVENT_LOC_SIZE)                      \
	X(19, REL_LOC_STRING, "__rel_loc char[]", UEVENT_LOC_SIZE)                                 \
	X(20, REL_LOC_UBYTES, "__rel_loc unsigned char[]", UEVENT_LOC_SIZE)                        \
	X(21, STRUCT, "struct", 0)

#define UEVENT_TYPE_ENUM_(value, NAME, spelling, size) UEVENT_TYPE_##NAME = value,
enum { UEVENT_TYPE_NONE = 0, UEVENT_TYPES(UEVENT_TYPE_ENUM_) UEVENT_TYPE_LIMIT };
#undef UEVENT_TYPE_ENUM_

/*
 * One field of a definition. Unused bytes of the names are zero; so is
 * reserved. All offsets and sizes are in bytes of the payload.
 */
struct uevent_field {
	char name[UEVENT_FIELD_NAME_MAX + 1];	     /* NUL-terminated */
	char struct_type[UEVENT_FIELD_NAME_MAX + 1]; /* TYPE of a struct field, else "" */
	uint16_t type;				     /* UEVENT_TYPE_* */
	uint16_t offset;			     /* in the fixed part */
	uint16_t size;	   /* in the fixed part: UEVENT_LOC_SIZE if dynamic */
	uint16_t reserved; /* zero */
};

_Static_assert(sizeof(struct uevent_field) == 72, "abi");
_Static_assert(offsetof(struct uevent_field, name) == 0, "abi");
_Static_assert(offsetof(struct uevent_field, struct_type) == 32, "abi");
_Static_assert(offsetof(struct uevent_field, type) == 64, "abi");
_Static_assert(offsetof(struct uevent_field, offset) == 66, "abi");
_Static_assert(offsetof(struct uevent_field, size) == 68, "abi");
_Static_assert(offsetof(struct uevent_field, reserved) == 70, "abi");

/* A parsed description. field[nfields..] are all zero. */
struct uevent_def {
	char name[UEVENT_NAME_MAX + 1]; /* NUL-terminated */
	uint32_t nfields;
	uint32_t fixed_size; /* sum of the fields' sizes, <= UEVENT_PAYLOAD_MAX */
	struct uevent_field field[UEVENT_FIELDS_MAX];
};

_Static_assert(sizeof(struct uevent_def) == 72 + UEVENT_FIELDS_MAX * 72, "abi");
_Static_assert(offsetof(struct uevent_def, name) == 0, "abi");
_Static_assert(offsetof(struct uevent_def, nfields) == 64, "abi");
_Static_assert(offsetof(struct uevent_def, fixed_size) == 68, "abi");
_Static_assert(offsetof(struct uevent_def, field) == 72, "abi");
_Static_assert(UEVENT_PAYLOAD_MAX == 200, "abi: 25 data words after the event id");
_Static_assert(UEVENT_PAYLOAD_MAX <= UEVENT_LOC_OFFSET_MASK, "abi: locations reach it all");

/*
 * THE KERNEL'S SIDE. The kernel keeps up to UEVENT_MAX events, each with
 * an id (0..UEVENT_MAX-1, its byte in the status page) and a generation
 * (counts the reuses of the id, so a reader never decodes an old event
 * with a new definition).
 *
 * Registering is traced's job (abi/traced.h): it calls
 *   uevent_register(trace-control slot, desc, len) -> slot
 * which parses desc, and returns a new user-event capability (rights
 * WRITE | GRANT) for the event of that name: the existing one if its
 * definition is the same, a new one otherwise, or -EADDRINUSE for the
 * same name with other fields (nothing changes), -ENOSPC when all
 * UEVENT_MAX ids are taken, or the parser's errors. traced passes the
 * capability to its client. Holding one is holding the event: a process
 * that exits lets go of its events with its capabilities. An event nobody
 * holds and nobody enables is released at once, its id free for reuse
 * (with the next generation): when its last capability goes while it is
 * disabled, or when it is disabled with no capability left.
 *
 * Writing: uevent_write(slot, payload, len) with a user-event capability
 * with the WRITE right. The slot is the write index: -EINVAL for a
 * negative one, -ENOENT for a slot that holds no user event (one the
 * caller never registered); -EACCES for a copy without the WRITE right;
 * -EBADF while the event is not enabled;
 * -EFAULT for a payload the caller cannot read, then the payload checks
 * above (-EINVAL, -E2BIG, -EFAULT). A write that fails after the event
 * was found stores nothing and counts in the event's rejected counter.
 * Otherwise it writes one event of kind user into the caller's CPU's
 * ring: data[0] = UEVENT_WORD0(id, generation, len), then the payload,
 * zero padded to whole words; -ENOSPC if drop mode dropped it (counted in
 * the ring's dropped).
 *
 * The status page: trace_map(user-event slot, TTRACE_MAP_UEVENT_STATUS, 0)
 * maps it read-only; byte id is non-zero while the event is enabled, so a
 * program checks it before it pays for a write. An event is enabled while
 * the user category is on and either every event is (UEVENT_OP_ENABLE_ALL)
 * or this one is (UEVENT_OP_ENABLE).
 *
 * Control: uevent_control(trace-control slot, op, id, arg), traced's:
 *   UEVENT_OP_INFO        arg: struct uevent_info * to fill; -ENOENT for a
 *                         free id
 *   UEVENT_OP_ENABLE      this event; UEVENT_OP_DISABLE: not this one
 *   UEVENT_OP_ENABLE_ALL  every event, also those registered later;
 *   UEVENT_OP_DISABLE_ALL none (id ignored)
 *   UEVENT_OP_DELETE      frees the id of an event nobody holds, even
 *                         one a consumer enables: -EBUSY while a program
 *                         holds it
 * -EINVAL for an unknown op or an id >= UEVENT_MAX.
 */
#define UEVENT_MAX 256 /* events at once: ids 0..255 */

#define UEVENT_WORD0(id, gen, len) ((uint64_t)(id) | (uint64_t)(gen) << 16 | (uint64_t)(len) << 48)
#define UEVENT_WORD0_ID(w)	   ((uint32_t)((w)&0xffffu))
#define UEVENT_WORD0_GEN(w)	   ((uint32_t)((w) >> 16) & 0xffffffffu)
#define UEVENT_WORD0_LEN(w)	   ((uint32_t)((w) >> 48))

/*
 * The id of the aux record (TTRACE_AUX_USER_EVENT, abi/trace.h) holding
 * the canonical description of event id at generation: UEVENT_WORD0
 * without the length. The kernel writes it when the event is made,
 * before any of its events can be written.
 */
#define UEVENT_AUX_ID(id, gen) ((uint64_t)(id) | (uint64_t)(gen) << 16)

#define UEVENT_OP_INFO	      0
#define UEVENT_OP_ENABLE      1
#define UEVENT_OP_DISABLE     2
#define UEVENT_OP_ENABLE_ALL  3
#define UEVENT_OP_DISABLE_ALL 4
#define UEVENT_OP_DELETE      5

struct uevent_info {
	uint32_t id;
	uint32_t generation;
	uint32_t holders;		/* capabilities that name it */
	uint8_t enabled;		/* its status byte */
	uint8_t selected;		/* enabled on its own (UEVENT_OP_ENABLE) */
	uint16_t reserved;		/* zero */
	uint64_t written;		/* events stored or dropped by the ring */
	uint64_t rejected;		/* writes refused */
	char desc[UEVENT_DESC_MAX + 1]; /* the canonical description, NUL-terminated */
	uint8_t pad[7];			/* zero */
};

_Static_assert(UEVENT_MAX <= TTRACE_PAGE_SIZE, "abi: one status byte an event, one page");
_Static_assert(sizeof(struct uevent_info) == 32 + 520, "abi");
_Static_assert(offsetof(struct uevent_info, written) == 16, "abi");
_Static_assert(offsetof(struct uevent_info, desc) == 32, "abi");

#endif
