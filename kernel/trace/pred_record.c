/*
 * pred_record: struct cpu laid out as the record of an event for the
 * lowering (pred_record.h).
 */
#include "trace/pred_record.h"

#include <stddef.h>

#define AT(field) ((uint16_t)offsetof(struct cpu, field))

/*
 * A field is read eight bytes at a time: from each of them, struct cpu
 * goes on at least that far (the fields come before the name, and the
 * stacks after it), and its offset fits the layout's 16 bits.
 */
_Static_assert(offsetof(struct cpu, id) < offsetof(struct cpu, trace_pred_comm) &&
		   offsetof(struct cpu, trace_ids) < offsetof(struct cpu, trace_pred_comm) &&
		   offsetof(struct cpu, trace_word1) < offsetof(struct cpu, trace_pred_comm),
	       "the name is the record's last field");
_Static_assert(offsetof(struct cpu, trace_pred_comm) + PROC_NAME_MAX + 8 <= sizeof(struct cpu) &&
		   offsetof(struct cpu, trace_pred_comm) + PROC_NAME_MAX < UINT16_MAX,
	       "a word past the name's end stays within struct cpu");

static const struct ttrace_pred_layout layout = {
    .at = {[TTRACE_PRED_F_DATA + 0] = AT(trace_pred_words[0]),
	   [TTRACE_PRED_F_DATA + 1] = AT(trace_pred_words[1]),
	   [TTRACE_PRED_F_DATA + 2] = AT(trace_pred_words[2]),
	   [TTRACE_PRED_F_DATA + 3] = AT(trace_pred_words[3]),
	   [TTRACE_PRED_F_DATA + 4] = AT(trace_pred_words[4]),
	   [TTRACE_PRED_F_PID] = AT(trace_ids),
	   [TTRACE_PRED_F_TID] = AT(trace_ids) + 4,
	   [TTRACE_PRED_F_CPU] = AT(id),
	   [TTRACE_PRED_F_CTX] = AT(trace_word1) + PERCPU_TRACE_CTX_BYTE,
	   [TTRACE_PRED_F_COMM] = AT(trace_pred_comm)},
    .bytes = {8, 8, 8, 8, 8, [TTRACE_PRED_F_PID] = 4, [TTRACE_PRED_F_TID] = 4,
	      [TTRACE_PRED_F_CPU] = 4, [TTRACE_PRED_F_CTX] = 1},
};

_Static_assert(TTRACE_HEAD_WORDS == 5, "the layout's data words");

uint8_t pred_named[TTRACE_KIND_LIMIT];

void pred_record_lower(const struct ttrace_pred_insn *p, uint32_t n, struct ttrace_pred_jumps *j)
{
	ttrace_pred_lower(p, n, &layout, j);
}
