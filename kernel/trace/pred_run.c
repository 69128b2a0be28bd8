/*
 * pred_run: ttrace_emit_slow() and the kinds' slots of compiled filters
 * (pred_run.h), one area of the kernel's text laid out by the asm below,
 * and the exit of a rejected event.
 */
#include "trace/pred_run.h"

#include <stdbool.h>
#include <stddef.h>

#include "abi/trace.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/restart.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "trace/emit.h"
#include "trace/filter.h"
#include "trace/pred_code.h"
#include "trace/tracepoint.h"
#include "trace/trigger.h"

/*
 * The slots, a kind each: TTRACE_KIND_LIMIT as a number the asm takes
 * (tracepoint.h holds the kinds to 33, a filter key each).
 */
#define SLOTS 33
_Static_assert(TTRACE_KIND_LIMIT <= SLOTS, "a slot a kind");

#define STR_(x) #x
#define STR(x)	STR_(x)

/* The asm's slots, and its range (restart.h): from ttrace_emit_slow() to their end. */
#define AREA_BYTES STR(SLOTS) " * " STR(PRED_CODE_BYTES)
#define AREA_RANGE RESTART_RANGE("ttrace_emit_slow", ".Lpred_run_end")

/* tracepoint.h: ktrace.c sets it with the sites; ttrace_emit_slow() below tests it. */
bool ttrace_sites_slow;

/* What ttrace_emit_slow() jumps to for a kind: its code, or the interpreter. */
typedef bool kind_path(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		       uint64_t d4);

/*
 * [stop] Each kind's path, read by ttrace_emit_slow() inside its range
 * (pred_run.h). From boot the interpreter's, which keeps an event of a
 * kind with neither program: only a CPU a stop caught on its way, before
 * a filter's removal, comes here for such a kind.
 */
static kind_path *pred_run_paths[TTRACE_KIND_LIMIT]
    __attribute__((used)) = {[0 ... TTRACE_KIND_LIMIT - 1] = ttrace_emit_filtered};

/*
 * ttrace_emit_slow() (tracepoint.h), then the slots, filled with int3
 * until a program is compiled into one. From its first instruction to
 * the slots' end one restartable range: a stop sends a CPU in it back to
 * the test of the extras, whose flag changes with the sites, in a stop
 * (ktrace.c). The kind is the low byte of edi, its count of words above.
 */
__asm__(".pushsection .text.ttrace_pred_run, \"ax\"\n\t"
	".balign 16\n\t"
	".globl ttrace_emit_slow\n\t"
	".type ttrace_emit_slow, @function\n"
	"ttrace_emit_slow:\n\t"
	"cmpb $0, ttrace_sites_slow(%rip)\n\t"
	"jne ttrace_emit_full\n\t"
	"movzbl %dil, %eax\n\t"
	"jmp *pred_run_paths(, %rax, 8)\n\t"
	".size ttrace_emit_slow, . - ttrace_emit_slow\n\t"
	".balign 16\n"
	"pred_run_slots:\n\t"
	".fill " AREA_BYTES ", 1, 0xcc\n"
	".Lpred_run_end:\n\t" AREA_RANGE "\n\t"
	".popsection");

extern uint8_t pred_run_slots[SLOTS][PRED_CODE_BYTES];

/*
 * Where the code sends an event its kind's filter rejects, with
 * interrupts on: counted in this CPU's view (through which the straight
 * path would have stored it), and not written. The count is one
 * instruction, which no interrupt splits, on a counter only this CPU
 * writes; the view changes only with this CPU's own switch, which no
 * interrupt makes (the kernel is not preempted).
 */
static bool rejected(void)
{
	__asm__ volatile("incq %0" : "+m"(this_cpu()->trace_head->filtered));
	return false;
}

void pred_run_install(uint16_t kind)
{
	/* the name where pred_record_name() finds it for the interpreter */
	static const char no_name[PROC_NAME_MAX];
	const struct pred_code_env env = {
	    .reject = (uintptr_t)rejected,
	    .fired = (uintptr_t)ttrace_emit_full,
	    .none = (uintptr_t)no_name,
	    .comm_at = offsetof(struct cpu, trace_pred_comm),
	    .pid_at = offsetof(struct cpu, trace_ids),
	    .current_at = offsetof(struct cpu, current),
	    .proc_at = offsetof(struct thread, proc),
	    .name_at = offsetof(struct process, name),
	};
	uint8_t *slot = pred_run_slots[kind];
	uint8_t code[PRED_CODE_BYTES];
	uint32_t n = pred_code_gen(filter_of[kind], trigger_of[kind], &env, (uintptr_t)slot, code,
				   sizeof(code));

	if (n) {
		/* The text is mapped read-only; its direct-map alias is writable. */
		memcpy(phys_to_virt(virt_to_phys(slot)), code, n);
	}
	pred_run_paths[kind] = n ? (kind_path *)(uintptr_t)slot : ttrace_emit_filtered;
}
