/*
 * ktrace: the kernel's side of tracing (the contract is abi/trace.h).
 *
 * One area of physically contiguous memory holds the header, the reader
 * page, a ring per CPU and the aux buffer; the kernel writes it through
 * the direct map, readers map it through trace capabilities. A tracepoint
 *
 *	TTRACE(mem_pf, vaddr, rip, err, outcome);
 *
 * costs, while its category is off, one 5-byte NOP: it is a static
 * branch (arch/x86_64/static_branch.h) keyed by its category's bit, which
 * ttrace_control() turns into a jump to the emitting code while the
 * category is on, every other CPU stopped meanwhile. ttrace_mask stays
 * the record of what is on, for the kernel's other readers; the
 * tracepoints follow it. Building with TTRACE=0 compiles every tracepoint
 * away. Arguments are the kind's words, in the order abi/trace_kinds.def
 * names them.
 *
 * Context: a tracepoint writes into the current CPU's ring (tracepoint.h);
 * it must not be preempted (the kernel never is) and may run in any
 * context, interrupt handlers included.
 */
#ifndef SPOOR_TRACE_KTRACE_H
#define SPOOR_TRACE_KTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "arch/x86_64/static_branch.h"
#include "trace/tracepoint.h"

/* Every kind's category bit, by name: TTRACE_KMASK_mem_pf. */
enum {
#define TTRACE_KIND(id, name, cat, args) TTRACE_KMASK_##name = 1 << TTRACE_CAT_BIT_##cat,
#include "abi/trace_kinds.def"
#undef TTRACE_KIND
};

/*
 * [a] The enabled categories; the header's mask mirrors it for readers,
 * the tracepoints' static branches follow it. Changed only by
 * ttrace_control(), with every other CPU stopped.
 */
extern uint64_t ttrace_mask;

/*
 * [I] after ttrace_init(): the trace area's physical address, 0 without
 * an area. The kernel never reads it: tools/spoor-postmortem looks this
 * symbol up in kernel.elf to find the area in a memory dump, so that an
 * area a program forges in its own memory is never taken for it.
 */
extern uint64_t ttrace_area_phys;

/* Where word 1 of an entry (struct ttrace_entry, little-endian) holds kind, cpu and ctx. */
#define TTRACE_WORD1_KIND_SHIFT 32
#define TTRACE_WORD1_CPU_SHIFT	48
#define TTRACE_WORD1_CTX_SHIFT	56
#define TTRACE_KIND_WORD(kind)	((uint64_t)(kind) << TTRACE_WORD1_KIND_SHIFT)

_Static_assert(TTRACE_WORD1_CTX_SHIFT == 8 * PERCPU_TRACE_CTX_BYTE, "struct cpu's trace_word1");

struct cpu;

#ifndef TTRACE_ENABLED
#define TTRACE_ENABLED 1
#endif

#if TTRACE_ENABLED
#define TTRACE(name, ...) ((void)TTRACE_SITE_(name, __VA_ARGS__))
/* TTRACE() as an expression: true if the tracepoint was on (tracepoint.h). */
#define TTRACE_TRIED(name, ...) TTRACE_SITE_(name, __VA_ARGS__)
#else
/* Compiled away, but the arguments still type-check. */
#define TTRACE(name, ...)                                                                          \
	do {                                                                                       \
		if (0) {                                                                           \
			const uint64_t ttrace_data_[] = {__VA_ARGS__};                             \
			(void)ttrace_data_;                                                        \
		}                                                                                  \
	} while (0)
#define TTRACE_TRIED(name, ...)                                                                    \
	({                                                                                         \
		TTRACE(name, __VA_ARGS__);                                                         \
		false;                                                                             \
	})
#endif

/*
 * Boot CPU, once memory, the CPU count and the TSC rate are known: lays
 * out and prepares the area (ring_kb per CPU, aux_kb of aux, both from the
 * command line), writes the boot names into the aux buffer, enables the
 * categories of the ttrace= option, and prints the banner line. The
 * area has a ring for each of num_cpus CPUs; a CPU writes to its ring
 * once ttrace_cpu_online() wired it (the boot CPU's, here).
 */
void ttrace_init(uint32_t num_cpus);

/*
 * Run by each CPU on itself as it comes online, after percpu_init() and
 * before it can reach a tracepoint: wires its ring (and the cpu its
 * events carry) into c. A CPU that never comes online has none, and
 * every loop over the rings skips its slot; so has every CPU when boot
 * left tracing without an area.
 */
void ttrace_cpu_online(struct cpu *c);

/*
 * The control operations of trace-control capabilities (abi/trace.h).
 * Returns the mask in force afterwards (>= 0), -EINVAL for an unknown op,
 * mode or category bit, -ENOENT for a pid no live process has (TRACK,
 * UNTRACK), or -ENOMEM when boot left tracing without an area. Lock
 * order: the control lock, then the process table's. ENABLE and DISABLE,
 * and the changes that turn the first of tracking, echo, stacks or drop
 * mode on or the last off, stop every other CPU while they rewrite the
 * tracepoints: callers follow smp_stop_others()'s rules (interrupts on,
 * no spinlock held) and may sleep (one change at a time). Those return
 * -ECPUSTUCK, having changed nothing, when a CPU did not stop within
 * SMP_STOP_WAIT_MS (a stuck one).
 */
int ttrace_control(uint32_t op, uint64_t arg);

/*
 * trace_filter (abi/trace_pred.h): kind's filter becomes the n
 * instructions at insn (kernel memory), or none for n = 0. Returns 0,
 * -EINVAL for a program ttrace_pred_verify() refuses or a kind that does
 * not exist, -ENOMEM without an area, -ECPUSTUCK having changed nothing
 * (it stops every other CPU, as ttrace_control()'s rewrites do: the same
 * calling rules). May sleep.
 */
struct ttrace_pred_insn;
int ttrace_filter(uint16_t kind, const struct ttrace_pred_insn *insn, uint32_t n);

/*
 * trace_trigger (abi/trace_pred.h, TRIGGERS): op TTRACE_TRIG_SET makes
 * *t (kernel memory) kind's trigger, or removes it for action NONE;
 * TTRACE_TRIG_GET fills *t with kind's. Returns 0, -EINVAL for a
 * trigger the checks refuse, an unknown kind or op, -ENOMEM without an
 * area, -ECPUSTUCK having changed nothing (SET stops every other CPU,
 * as ttrace_filter()). May sleep.
 */
struct ttrace_trigger;
int ttrace_trigger(uint32_t op, uint16_t kind, struct ttrace_trigger *t);

/*
 * Points c's view of its ring (struct cpu, trace_head) at the ring, or
 * for quiet at the slot nobody reads (abi/trace.h TTRACE_OP_QUIET).
 * Interrupts off, on c itself, or at boot before c traces.
 */
struct cpu;
void ttrace_view_set(struct cpu *c, bool quiet);

/* Slots in each CPU's ring, or 0 without a trace area. */
uint64_t ttrace_ring_entries(void);

/* The frame objects behind the trace capabilities: the whole area, the reader page. */
struct memobj *ttrace_area_object(void);
struct memobj *ttrace_reader_object(void);

/* Every timer tick on CPU 0: reports echo lines skipped in a second that has ended. */
void ttrace_tick(void);

#endif
