/*
 * tracepoint: what TTRACE() (ktrace.h) compiles to at each site.
 *
 * A site is one static branch with an alternative (static_branch.h):
 *  - off, its category disabled: a 5-byte NOP;
 *  - on: a jump to the straight path below, written out at the site (no
 *    call, no frame, the words stored from wherever the site has them);
 *  - on while an extra is on too, anything the straight path does not do
 *    (PID tracking, the echo, drop mode, call stacks) or cannot trust (a
 *    TSC too high to keep bit 63 clear): a jump to a call of
 *    ttrace_emit_slow(), which checks all of it;
 *  - on while its kind has a filter or a trigger (abi/trace_pred.h): the
 *    same jump to the same call, which then, no extra being on, only
 *    runs them, compiled to machine code (pred_run.h): the filtered path.
 *    An event the filter rejects is counted there; one it keeps, that no
 *    trigger fires on, comes back to be written on the straight path (a
 *    firing's action is the slow path's). The key is the kind's own bit
 *    (TTRACE_KEY_FILTER()), so the sites of every other kind keep the
 *    straight path (a STOP trigger excepted: it is an extra, as its stop
 *    is checked by the slow path alone).
 * ttrace_control() moves every site between the three with every other
 * CPU stopped, so the straight path tests nothing: that it runs says the
 * category is on, no extra is, and its kind has no filter or trigger or
 * they kept the event.
 *
 * A CPU may be stopped on its way through a straight path, though, and
 * the operation that moved the sites takes effect once the stop is over:
 * a path that went on would write past it (overwrite in drop mode, record
 * a pid PID tracking leaves out). So the path begins with a static branch
 * of its own on the extras' key, a NOP while no extra is on, and up to its
 * reservation (the cmpxchg of W1) it is a restartable range
 * (arch/x86_64/restart.h): it stores nothing before it, and changes none
 * of the registers it reads, only its outputs and clobbers. A CPU stopped
 * anywhere from the site to the reservation reaches that branch after the
 * stop, from the compiler's code that sets up the words or sent back to
 * the range's start by the stop itself; with an extra on, the branch
 * turns it away, back to the site, which takes the slow path now (or
 * nothing, the category gone). A path stopped past its reservation
 * finishes the event it reserved before the move, in the ring's place
 * and time the reservation gave it: the ledger counts it as it counts
 * any reservation made before a change of mode.
 *
 * The straight path writes an event of one slot (every kernel kind fits
 * one) into this CPU's ring in overwrite mode, W1-W3 of abi/trace.h:
 *  W1. Load head, read the TSC, then move head on from the value loaded
 *      with cmpxchg, one instruction an interrupt on this CPU cannot
 *      split, without a lock (only this CPU writes head). The ts is read
 *      between the load and the exchange, so a ring's timestamps rise
 *      with its indices: an interrupt whose events move head in between
 *      makes the exchange fail, and the TSC is read again after them. An
 *      interrupt after the exchange takes the indices after ours, and
 *      reads its ts after ours.
 *  W2. Store TTRACE_TS_WRITING, then word 1 (seq, kind, cpu and the
 *      context, from struct cpu), word 2 (pid, tid) and the five data
 *      words. Every store on x86 is a release; the asm's "memory" clobber
 *      keeps the compiler from moving any of the site's accesses across.
 *  W3. Store the ts, with bit 1 flipped if the slot held that very ts (a
 *      clock that stood still for a lap).
 * The rare turns (an exchange an interrupt made fail, which starts the
 * path again from its branch, a ts that stood still) are out of line in
 * .text.ttrace_unlikely, a section of their
 * own: were it .text.unlikely, a site in a cold function (or in the cold
 * part GCC splits off a function) is already there, the turns would be
 * assembled right after W3, and the path would run into them.
 *
 * It writes where struct cpu's trace view points: this CPU's ring, or
 * while a quiet process runs (abi/trace.h TTRACE_OP_QUIET) a slot nobody
 * reads. The switch moves the view (sched/switch.h), so leaving a quiet
 * process's events out costs the straight path nothing.
 */
#ifndef SPOOR_TRACE_TRACEPOINT_H
#define SPOOR_TRACE_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/restart.h"
#include "arch/x86_64/static_branch.h"

/*
 * The static key of the extras: a bit no category has. ttrace_control()
 * adds it to the mask it hands static_branches_set() while any extra is on.
 * (A key is an asm immediate: below 2^31.)
 */
#define TTRACE_KEY_EXTRAS (1ull << 30)

_Static_assert(TTRACE_CAT_ALL < TTRACE_KEY_EXTRAS, "a bit no category has");

/*
 * The static key of kind k's filter or trigger, a site's alternative key
 * beside the extras': a bit of the high half, which no category and no
 * extra has. ktrace.c adds the bits of the kinds with either to the mask.
 * Moving a site of kind k onto the slow path for its filter needs no
 * change of the straight path's own branch: a filter comes on as an
 * extra does, the sites moved to the slow path first (ktrace.c).
 */
#define TTRACE_KEY_FILTER(kind) (1ull << (32 + (kind) % 32))

/* Kind 32 takes kind 0's bit: no kind is 0 (abi/trace_kinds.def). */
_Static_assert(TTRACE_KIND_LIMIT <= 33, "a filter key a kind, in the high half");

/* TTRACE_KIND_WORD(k) for each kind k (kind_words.c): word 1's kind, as a memory operand. */
extern const uint64_t ttrace_kind_words[TTRACE_KIND_LIMIT];

/*
 * The full path for a tracepoint's event, for sites while an extra is on
 * or its kind has a filter or a trigger: kind_n is the kind with its
 * number of words << TTRACE_SLOW_NWORDS_SHIFT (a 32-bit immediate: each
 * site sets it up; the kind in the low byte, one load away), d0..d4 the
 * words (zero past them). With an extra on (ttrace_sites_slow), checks
 * PID tracking, the echo, the ring's mode, the filter and the trigger,
 * and walks the stack when asked, and writes the event (emit.h). Without,
 * runs the kind's filter and trigger only (pred_run.h, which defines it),
 * and returns true for an event the filter keeps and no trigger fires
 * on: the caller writes it on its straight path. Called from the site
 * itself, so the slow path's frame returns into the function that has
 * the tracepoint.
 */
#define TTRACE_SLOW_NWORDS_SHIFT 8
_Static_assert(TTRACE_KIND_LIMIT <= 1 << TTRACE_SLOW_NWORDS_SHIFT, "a kind in the low byte");
bool ttrace_emit_slow(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		      uint64_t d4);

/*
 * [stop] The extras' key is on at the sites (TTRACE_KEY_EXTRAS): their
 * straight paths turn away, and ttrace_emit_slow() takes the full path.
 * ktrace.c changes it with the sites, every other CPU stopped.
 */
extern bool ttrace_sites_slow;

/* The byte offsets the straight path reads through %gs. */
#define TTRACE_PERCPU_STATE offsetof(struct cpu, trace_head)
#define TTRACE_PERCPU_SLOTS offsetof(struct cpu, trace_slots)
#define TTRACE_PERCPU_MASK  offsetof(struct cpu, trace_index_mask)
#define TTRACE_PERCPU_WORD1 offsetof(struct cpu, trace_word1)
#define TTRACE_PERCPU_IDS   offsetof(struct cpu, trace_ids)

_Static_assert(offsetof(struct ttrace_cpu, head) == 0, "(%[hp]) is head");
_Static_assert(TTRACE_ENTRY_SIZE == 1 << 6 && TTRACE_HEAD_WORDS == 5, "the slot's stores below");
_Static_assert(TTRACE_TS_WRITING == UINT64_MAX && TTRACE_TS_CONT == 1, "$-1, $-2 below");

/*
 * The straight path's start (see the top), in its asm: the branch that
 * turns it away while an extra is on, and its restartable range, from
 * there to the reservation.
 */
#define TTRACE_PATH_START_                                                                         \
	".Lttrace_path%=:\n\t" STATIC_BRANCH_NOP "\n\t" STATIC_BRANCH_ENTRY(                       \
	    ".Lttrace_path%=", "%l[turned]", "%l[turned]", "%c[extras]",                           \
	    "0") "\n\t" RESTART_RANGE(".Lttrace_path%=", ".Lttrace_reserved%=") "\n\t"

/*
 * The straight path (see the top): an event of kind with the words d0..d4
 * (zero past its own), on this CPU, not preempted. Any context. False,
 * having written nothing, if an extra came on while it ran: the caller
 * takes its site again.
 */
static inline __attribute__((always_inline)) bool
ttrace_write_here(uint16_t kind, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4)
{
	uint64_t head_p, w;

	/*
	 * inline: for GCC's inliner the asm is as small as can be (else it
	 * counts its lines), so a site costs the function that has it no
	 * inlining it had before. volatile: an asm goto with outputs is not
	 * volatile by itself, and the outputs here are scratch nobody uses.
	 */
	__asm__ volatile inline goto(
	    TTRACE_PATH_START_
	    /* W1 */
	    "mov %%gs:%c[state], %[hp]\n\t"
	    "mov (%[hp]), %[w]\n\t"
	    "rdtsc\n\t"
	    "shl $32, %%rdx\n\t"
	    "or %%rax, %%rdx\n\t"
	    "and $-2, %%rdx\n\t"
	    "mov %[w], %%rax\n\t"
	    "lea 1(%[w]), %[w]\n\t"
	    "cmpxchg %[w], (%[hp])\n"
	    ".Lttrace_reserved%=:\n\t"
	    "jne .Lttrace_again%=\n\t"
	    /* word 1 from the index's low half (seq), the kind and this CPU's part; its slot */
	    "mov %%eax, %k[w]\n\t"
	    "or %[kind], %[w]\n\t"
	    "or %%gs:%c[word1], %[w]\n\t"
	    "and %%gs:%c[mask], %%eax\n\t"
	    "shl $6, %%rax\n\t"
	    "add %%gs:%c[slots], %%rax\n\t"
	    "cmp %%rdx, (%%rax)\n\t"
	    "je .Lttrace_stood%=\n"
	    ".Lttrace_fresh%=:\n\t"
	    /* W2 */
	    "movq $-1, (%%rax)\n\t"
	    "mov %[w], 8(%%rax)\n\t"
	    "mov %%gs:%c[ids], %[w]\n\t"
	    "mov %[w], 16(%%rax)\n\t"
	    "movq %[d0], 24(%%rax)\n\t"
	    "movq %[d1], 32(%%rax)\n\t"
	    "movq %[d2], 40(%%rax)\n\t"
	    "movq %[d3], 48(%%rax)\n\t"
	    "movq %[d4], 56(%%rax)\n\t"
	    /* W3 */
	    "mov %%rdx, (%%rax)\n\t"
	    ".pushsection .text.ttrace_unlikely, \"ax\"\n"
	    /* An interrupt's events moved head: again from the branch, with a new ts. */
	    ".Lttrace_again%=:\n\t"
	    "jmp .Lttrace_path%=\n"
	    /* The slot holds this ts already (W3). */
	    ".Lttrace_stood%=:\n\t"
	    "xor $2, %%rdx\n\t"
	    "jmp .Lttrace_fresh%=\n\t"
	    ".popsection"
	    /* cppcheck-suppress uninitvar ; outputs of an asm it does not parse (asm inline) */
	    : [hp] "=&r"(head_p), [w] "=&r"(w)
	    : [kind] "m"(ttrace_kind_words[kind]), [state] "i"(TTRACE_PERCPU_STATE),
	      [slots] "i"(TTRACE_PERCPU_SLOTS), [mask] "i"(TTRACE_PERCPU_MASK),
	      [word1] "i"(TTRACE_PERCPU_WORD1), [ids] "i"(TTRACE_PERCPU_IDS), [d0] "re"(d0),
	      [d1] "re"(d1), [d2] "re"(d2), [d3] "re"(d3), [d4] "re"(d4),
	      [extras] "i"(TTRACE_KEY_EXTRAS)
	    : "rax", "rdx", "cc", "memory"
	    : turned);
	return true;
turned:
	return false;
}

/* The words of a tracepoint, padded with zeros to five (TTRACE_SITE_ refuses more). */
#define TTRACE_WORDS_(...)		     TTRACE_FIVE_(__VA_ARGS__, 0, 0, 0, 0, 0)
#define TTRACE_FIVE_(a, b, c, d, e, ...)     a, b, c, d, e
#define TTRACE_COUNT_(a, b, c, d, e, n, ...) n
#define TTRACE_NWORDS_(...)		     TTRACE_COUNT_(__VA_ARGS__, 5, 4, 3, 2, 1, 0)

/*
 * A tracepoint's site, as an expression: true if it was on (its event
 * written, or handed to the slow path, which may still leave it out).
 * The words are evaluated only on the way taken, and again when a
 * straight path turned away takes the site again (see the top): they
 * have no side effects. The alternative way writes on the straight path
 * too, what the filtered path kept.
 */
#define TTRACE_SITE_(name, ...)                                                                    \
	({                                                                                         \
		_Static_assert(sizeof((uint64_t[]){__VA_ARGS__}) <=                                \
				   TTRACE_HEAD_WORDS * sizeof(uint64_t),                           \
			       "a tracepoint has at most five words");                             \
		enum static_branch_way ttrace_way_;                                                \
		do {                                                                               \
			ttrace_way_ = static_branch_alt(                                           \
			    TTRACE_KMASK_##name,                                                   \
			    TTRACE_KEY_EXTRAS | TTRACE_KEY_FILTER(TTRACE_KIND_##name));            \
		} while (                                                                          \
		    __builtin_expect(ttrace_way_ != STATIC_BRANCH_OFF, 0) &&                       \
		    (ttrace_way_ == STATIC_BRANCH_ON ||                                            \
		     ttrace_emit_slow(TTRACE_NWORDS_(__VA_ARGS__) << TTRACE_SLOW_NWORDS_SHIFT |    \
					  TTRACE_KIND_##name,                                      \
				      TTRACE_WORDS_(__VA_ARGS__))) &&                              \
		    __builtin_expect(                                                              \
			!ttrace_write_here(TTRACE_KIND_##name, TTRACE_WORDS_(__VA_ARGS__)), 0));   \
		ttrace_way_ != STATIC_BRANCH_OFF;                                                  \
	})

#endif
