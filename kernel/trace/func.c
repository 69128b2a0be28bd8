/*
 * func: see func.h. The sites are the linker's list of GCC's entry NOPs;
 * whether one is traced is what its five bytes hold (the NOP or a call of
 * the trampoline), so no other record of it is kept to drift from the
 * code. The function each site begins is found once, by address, in the
 * kernel's symbol table (lib/ksyms.h): has_site marks them by symbol
 * index. The graph (graph.h) patches every site, its roots to call
 * graph_root_trampoline and the rest graph_trampoline, so which of the
 * two tracers has a site is what its call's target says too.
 *
 * Lock order: func_mutex (each func_trace_set() and the table's making,
 * held across its stop of the other CPUs), then smp_stop_others()' own.
 */
#include "trace/func.h"

#include <stdbool.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "common/func_glob.h"
#include "lib/ksyms.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "sched/wait.h"
#include "trace/func_guard.h"
#include "trace/func_notrace.h"
#include "trace/graph.h"
#include "trace/ktrace.h"

#define SITE_BYTES    5
#define OP_CALL_REL32 0xe8 /* SDM 2A CALL: E8 cd, relative to the next instruction */
#define BITS	      64

extern const uint64_t _func_sites_start[], _func_sites_end[];
extern const struct func_notrace func_notrace[] __attribute__((weak));
extern const uint32_t func_notrace_count __attribute__((weak));
/* arch/x86_64/fentry.S */
extern const char func_trampoline[], graph_trampoline[], graph_root_trampoline[];

/* The NOP GCC's -mnop-mcount emits, as the static branches' (SDM 2B "NOP"). */
static const uint8_t nop5[SITE_BYTES] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

static struct mutex func_mutex = {.wq = WAITQ_INIT(func_mutex.wq)};
static uint64_t
    *has_site; /* [func_mutex] a bit per symbol: it begins with a site; NULL: not made */
static uint32_t func_traced; /* [func_mutex] sites that call func_trampoline */
static bool graph_on;	     /* [func_mutex] the sites call the graph's trampolines */

/*
 * Marks the symbols that begin with a site, once. A site no symbol begins
 * (a NOP in code outside the kernel's text) is never patched.
 */
static int make_table(void)
{
	uint32_t n = ksyms_total();

	if (has_site) {
		return 0;
	}
	has_site = kzalloc((n / BITS + 1) * sizeof(uint64_t));
	if (!has_site) {
		return -ENOMEM;
	}
	/* kernel.ld's bounds of one array, which C would take for two objects */
	size_t sites =
	    ((uintptr_t)_func_sites_end - (uintptr_t)_func_sites_start) / sizeof(uint64_t);

	for (size_t s = 0; s < sites; s++) {
		int64_t i = ksyms_index(_func_sites_start[s]);
		if (i >= 0) {
			has_site[i / BITS] |= 1ull << (i % BITS);
		}
	}
	return 0;
}

static bool site_of(uint32_t i)
{
	return has_site[i / BITS] >> (i % BITS) & 1;
}

/* The five bytes that call trampoline from the site at code. */
static void call_from(uintptr_t code, const char *trampoline, uint8_t insn[SITE_BYTES])
{
	/* the trampoline is in the kernel's text, well within 2 GiB of the site */
	int32_t rel = (int32_t)((uintptr_t)trampoline - (code + SITE_BYTES));

	insn[0] = OP_CALL_REL32;
	memcpy(insn + 1, &rel, sizeof(rel));
}

/* The trampoline the site at code calls, or NULL while it is the NOP. */
static const char *target(uintptr_t code)
{
	int32_t rel;

	if (*(const uint8_t *)code != OP_CALL_REL32) {
		return NULL;
	}
	memcpy(&rel, (const void *)(code + 1), sizeof(rel));
	return (const char *)(code + SITE_BYTES + rel);
}

/* Whether any pattern of list matches name; an empty list matches every name. */
static bool matches(const char *list, size_t len, const char *name)
{
	const char *at = list, *p;
	size_t plen;
	bool any = false;

	while (func_glob_next(&at, list + len, &p, &plen)) {
		if (func_glob_match(p, plen, name)) {
			return true;
		}
		any = true;
	}
	return !any;
}

/* A change of func_trace_set(), and the number of functions traced (or roots) after it. */
struct change {
	uint32_t op;
	const char *list;
	size_t len;
	uint32_t traced; /* out */
};

/*
 * What the change c wants the site at addr, of the function name, to
 * call: a trampoline, or NULL for the NOP. Each OFF puts back only its
 * own tracer's sites.
 */
static const char *wanted(const struct change *c, uintptr_t addr, const char *name)
{
	const char *now = target(addr);
	bool match = matches(c->list, c->len, name);

	switch (c->op) {
	case TTRACE_FUNC_ON:
		return match ? func_trampoline : now;
	case TTRACE_FUNC_OFF:
		return match && now == func_trampoline ? NULL : now;
	case TTRACE_FUNC_GRAPH_ON:
		return match ? graph_root_trampoline : graph_trampoline;
	default: /* TTRACE_FUNC_GRAPH_OFF */
		return now == graph_trampoline || now == graph_root_trampoline ? NULL : now;
	}
}

/*
 * Every other CPU stopped (smp_stop_others()): rewrites the sites of the
 * functions the list matches. A stopped CPU waits at an instruction
 * boundary, never inside a site's one instruction, and serialises before
 * it runs on, so the five bytes need not change in one store.
 */
static void change_sites(void *arg)
{
	struct change *c = arg;
	/* what the count is of: the graph's roots, or trace func's functions */
	const char *counted =
	    c->op == TTRACE_FUNC_GRAPH_ON ? graph_root_trampoline : func_trampoline;

	c->traced = 0;
	for (uint32_t i = 0; i < ksyms_total(); i++) {
		uint64_t addr;
		const char *name = ksyms_at(i, &addr);
		uint8_t want[SITE_BYTES];

		if (!site_of(i)) {
			continue;
		}
		const char *to = wanted(c, addr, name);
		if (to) {
			call_from(addr, to, want);
		} else {
			memcpy(want, nop5, SITE_BYTES);
		}
		c->traced += to == counted;
		if (memcmp((const void *)addr, want, SITE_BYTES)) {
			/* The text is mapped read-only; its direct-map alias is writable. */
			memcpy(phys_to_virt(virt_to_phys((const void *)addr)), want, SITE_BYTES);
		}
	}
}

/* Whether pattern p (len bytes) matches a function that has a site. */
static bool any_traceable(const char *p, size_t len)
{
	for (uint32_t i = 0; i < ksyms_total(); i++) {
		uint64_t addr;

		if (site_of(i) && func_glob_match(p, len, ksyms_at(i, &addr))) {
			return true;
		}
	}
	return false;
}

/* The checks of func_trace_set(), func_mutex held: 0 or its error. */
static int check(uint32_t op, uint32_t depth, const char *list, size_t len)
{
	const char *at = list, *p;
	size_t plen;
	bool any = false;

	bool on = op == TTRACE_FUNC_ON || op == TTRACE_FUNC_GRAPH_ON;

	if (op > TTRACE_FUNC_GRAPH_OFF || depth > TTRACE_GRAPH_DEPTH ||
	    (depth && op != TTRACE_FUNC_GRAPH_ON)) {
		return -EINVAL;
	}
	while (func_glob_next(&at, list + len, &p, &plen)) {
		if (!func_glob_valid(p, plen)) {
			return -EINVAL;
		}
		if (on && !any_traceable(p, plen)) {
			return -ENOENT;
		}
		any = true;
	}
	if (on ? !any : op == TTRACE_FUNC_GRAPH_OFF && any) {
		return -EINVAL;
	}
	/* The graph patches every site: it and trace func exclude each other. */
	return (op == TTRACE_FUNC_ON && graph_on) || (op == TTRACE_FUNC_GRAPH_ON && func_traced)
		   ? -EBUSY
		   : 0;
}

int func_trace_set(uint32_t op, const char *list, size_t len)
{
	uint32_t depth = op >> TTRACE_FUNC_DEPTH_SHIFT;
	struct change c = {
	    .op = op & ((1u << TTRACE_FUNC_DEPTH_SHIFT) - 1), .list = list, .len = len};

	op = c.op;
	mutex_lock(&func_mutex);
	int err = make_table();
	if (!err) {
		err = check(op, depth, list, len);
	}
	if (!err && op == TTRACE_FUNC_GRAPH_ON) {
		graph_prepare(depth ? depth : TTRACE_GRAPH_DEPTH);
	}
	if (!err) {
		err = smp_stop_others(change_sites, &c);
	}
	if (!err && op <= TTRACE_FUNC_OFF) {
		func_traced = c.traced;
	} else if (!err) {
		graph_on = op == TTRACE_FUNC_GRAPH_ON;
	}
	mutex_unlock(&func_mutex);
	return err ? err : (int)c.traced;
}

/* Why the function name, without a site, has none. */
static uint32_t why_not(const char *name)
{
	size_t len = strlen(name);

	/* GCC's names for the cold part it splits off: NAME.cold, NAME.cold.N */
	for (size_t i = 0; i + 5 <= len; i++) {
		if (!strncmp(name + i, ".cold", 5)) {
			return TTRACE_FUNC_WHY_COLD;
		}
	}
	for (uint32_t i = 0; &func_notrace_count && i < func_notrace_count; i++) {
		if (!strcmp(func_notrace[i].name, name)) {
			return func_notrace[i].why;
		}
	}
	return TTRACE_FUNC_WHY_NOTRACE;
}

int func_trace_info(uint32_t i, struct ttrace_func_info *info)
{
	uint64_t addr;

	if (i >= ksyms_total()) {
		return -ENOENT;
	}
	mutex_lock(&func_mutex);
	int err = make_table();
	if (!err) {
		const char *name = ksyms_at(i, &addr);
		const char *to = site_of(i) ? target(addr) : NULL;

		*info = (struct ttrace_func_info){
		    .missed = __atomic_load_n(&func_guard_missed, __ATOMIC_RELAXED),
		    .overflowed = graph_overflowed(),
		    .why = !site_of(i)			 ? why_not(name)
			   : to == func_trampoline	 ? TTRACE_FUNC_WHY_ON
			   : to == graph_root_trampoline ? TTRACE_FUNC_WHY_ROOT
							 : TTRACE_FUNC_WHY_OFF,
		};
		size_t len = strlen(name);

		len = len < sizeof(info->name) ? len : sizeof(info->name) - 1;
		memcpy(info->name, name, len); /* the rest zero, from the compound literal */
	}
	mutex_unlock(&func_mutex);
	return err;
}

bool func_trace_has_site(uint32_t i)
{
	mutex_lock(&func_mutex);
	bool has = i < ksyms_total() && !make_table() && site_of(i);
	mutex_unlock(&func_mutex);
	return has;
}

void func_trace_hit(uint64_t site, uint64_t caller)
{
	uint32_t cpu = this_cpu()->id;

	/*
	 * The tracepoint is the category's static branch: nothing while func
	 * is off, its straight path while no extra is on, else the slow path
	 * (the only one that calls code outside the tracer, the echo's, whose
	 * traced functions then find the guard held).
	 */
	if (!func_guard_take(cpu)) {
		func_guard_miss(1);
		return;
	}
	TTRACE(func_entry, site, caller);
	func_guard_drop(cpu);
}
