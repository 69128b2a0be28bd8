/*
 * The function tracer (`trace func`): every kernel function that GCC gave
 * an entry NOP (-pg -mfentry -mnop-mcount -mrecord-mcount) can be made to
 * record a func_entry event (the function, its caller) at each entry, at
 * run time. Its site, the NOP before the function's prologue, becomes a
 * call of the tracer's trampoline, every other CPU stopped meanwhile, as
 * the tracepoints' static branches are rewritten; off, it is the NOP
 * again. Events are recorded while the category func is on too, so
 * `trace off func` pauses them and the sites stay as they are.
 *
 * PATTERNS. A pattern is a glob over kernel function names (the kernel's
 * symbol table, as the panic block names frames): letters, digits, '_'
 * and '.', and the globs '*' (any run of characters) and '?' (any one),
 * 1 to TTRACE_FUNC_PATTERN_MAX characters. The system call trace_func
 * takes a list of them, separated by spaces.
 *
 * WHAT MAY NOT BE TRACED. A function without an entry NOP is never
 * patched; TTRACE_FUNC_WHYS says why it has none: the code a traced
 * function's entry runs (the trampoline, the trace writer and the rest of
 * kernel/trace/ and common/), the code that patches (static branches, CPU
 * stops, the restartable ranges, string copies, the symbol table), the
 * trap, interrupt and NMI handling, the entry code (written in assembly,
 * and the system call dispatch that every call enters, as Linux keeps its
 * entry code noinstr), and functions marked notrace one by one.
 *
 * RECURSION. A CPU records one function entry at a time, interrupts
 * masked. An entry it reaches meanwhile (from an NMI, or the echo's
 * console output) is not recorded but counted in missed
 * (struct ttrace_func_info), never lost silently.
 *
 * THE GRAPH (`trace graph FUNC`). TTRACE_FUNC_GRAPH_ON makes the functions
 * one pattern matches the graph's roots: each call of a root, and every
 * call made inside it, records graph_entry (the function, its depth: 0
 * for the root) and, when it ends, graph_exit (the same, the nanoseconds
 * it took and how it ended: TTRACE_GRAPH_ENDS), as Linux's function_graph
 * with set_graph_function does. Interrupts taken inside a call are part
 * of it, as their functions are of the graph. Every traceable function's
 * site is patched meanwhile, so the graph and `trace func` exclude each
 * other: either one's ON while the other has functions is -EBUSY.
 * TTRACE_FUNC_GRAPH_OFF puts every NOP back; calls under way still end
 * through their return hooks.
 *
 * Each thread keeps the calls under way on a return stack of
 * TTRACE_GRAPH_DEPTH (or the depth GRAPH_ON asks): a call made when it is full is not recorded (nor
 * anything it calls while it stays full) but counted in overflowed. Every
 * graph_entry gets its graph_exit in the same thread: a call whose stack
 * a thread left for good (the IPC fast path's hand-off abandons the
 * caller's stack) ends abandoned when the thread next enters or leaves a
 * function there, and the calls of a thread that exits end as it exits.
 */
#ifndef SPOOR_ABI_TRACE_FUNC_H
#define SPOOR_ABI_TRACE_FUNC_H

#include <stdint.h>

/* The longest pattern, and the longest function name func_info gives. */
#define TTRACE_FUNC_PATTERN_MAX 63
#define TTRACE_FUNC_NAME_MAX	64

/* trace_func's operations. */
#define TTRACE_FUNC_ON	      0 /* every traceable function a pattern matches: traced */
#define TTRACE_FUNC_OFF	      1 /* every traced one a pattern matches (no pattern: all) not any more */
#define TTRACE_FUNC_GRAPH_ON  2 /* the functions one pattern matches: the graph's roots */
#define TTRACE_FUNC_GRAPH_OFF 3 /* the graph off, every site its NOP again */

/* The calls under way a thread's return stack holds (THE GRAPH). */
#define TTRACE_GRAPH_DEPTH 32

/*
 * GRAPH_ON's op may carry a smaller depth above its low byte, as ftrace's
 * max_graph_depth: TTRACE_FUNC_GRAPH_ON | n << TTRACE_FUNC_DEPTH_SHIFT,
 * n from 1 to TTRACE_GRAPH_DEPTH (0: TTRACE_GRAPH_DEPTH). A call deeper
 * than n is not recorded and counted in overflowed, as one a full return
 * stack has no room for.
 */
#define TTRACE_FUNC_DEPTH_SHIFT 8

/* How a call of the graph ended, graph_exit's end: value, NAME, name. Append only. */
#define TTRACE_GRAPH_ENDS(X)                                                                       \
	X(0, RETURNED, returned)                                                                   \
	X(1, ABANDONED, abandoned)                                                                 \
	X(2, EXITED, exited)

#define TTRACE_GRAPH_END_(value, NAME, name) TTRACE_GRAPH_##NAME = value,

enum { TTRACE_GRAPH_ENDS(TTRACE_GRAPH_END_) };

/*
 * A function's state, struct ttrace_func_info's why: traceable (off or
 * on), or why it may not be traced: bit, NAME, text. Append only.
 */
#define TTRACE_FUNC_WHYS(X)                                                                        \
	X(0, OFF, "traceable")                                                                     \
	X(1, ON, "traced")                                                                         \
	X(2, TRACER, "not traceable: the tracer itself (kernel/trace/, common/)")                  \
	X(3, PATCHER, "not traceable: the patching code (static branches, CPU stops, symbols)")    \
	X(4, TRAP, "not traceable: trap, interrupt and NMI handling")                              \
	X(5, ENTRY, "not traceable: entry code (assembly, the system call dispatch)")              \
	X(6, NOTRACE, "not traceable: no entry NOP (marked notrace, or not C)")                    \
	X(7, COLD, "not traceable: a function's cold part, not an entry")                          \
	X(8, ROOT, "traceable: the graph's root (trace graph)")

#define TTRACE_FUNC_WHY_(n, NAME, text) TTRACE_FUNC_WHY_##NAME = n,

enum { TTRACE_FUNC_WHYS(TTRACE_FUNC_WHY_) TTRACE_FUNC_WHY_LIMIT };

/*
 * What the system call func_info(index, struct ttrace_func_info *) says
 * of the kernel's function at index (its symbol table's order, by
 * address): -ENOENT past the last. Any program may ask: the names are
 * those ksym gives already.
 */
struct ttrace_func_info {
	uint64_t missed; /* function entries not recorded (RECURSION), every CPU's */
	uint32_t why;	 /* TTRACE_FUNC_WHY_* */
	uint32_t
	    overflowed; /* graph calls its return stacks had no room for (THE GRAPH), saturating */
	char name[TTRACE_FUNC_NAME_MAX]; /* NUL-terminated, cut to fit */
};

_Static_assert(sizeof(struct ttrace_func_info) == 16 + TTRACE_FUNC_NAME_MAX, "abi");

#endif
