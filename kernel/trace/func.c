/*
 * func: see func.h. The sites are the linker's list of GCC's entry NOPs;
 * whether one is traced is what its five bytes hold (the NOP or a call of
 * the trampoline), so no other record of it is kept to drift from the
 * code. The function each site begins is found once, by address, in the
 * kernel's symbol table (lib/ksyms.h): has_site marks them by symbol
 * index.
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
#include "trace/func_notrace.h"
#include "trace/ktrace.h"

#define SITE_BYTES    5
#define OP_CALL_REL32 0xe8 /* SDM 2A CALL: E8 cd, relative to the next instruction */
#define BITS	      64

extern const uint64_t _func_sites_start[], _func_sites_end[];
extern const struct func_notrace func_notrace[] __attribute__((weak));
extern const uint32_t func_notrace_count __attribute__((weak));
/* arch/x86_64/fentry.S */
extern const char func_trampoline[];

/* The NOP GCC's -mnop-mcount emits, as the static branches' (SDM 2B "NOP"). */
static const uint8_t nop5[SITE_BYTES] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

static struct mutex func_mutex = {.wq = WAITQ_INIT(func_mutex.wq)};
static uint64_t
    *has_site; /* [func_mutex] a bit per symbol: it begins with a site; NULL: not made */
/* Each CPU's guard: 1 while it records an entry. Only that CPU, or its NMI, reads and writes it. */
static uint8_t busy[MAX_CPUS];
static uint64_t missed; /* [a] entries the guard turned away */

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

/* The five bytes that call the trampoline from the site at code. */
static void call_from(uintptr_t code, uint8_t insn[SITE_BYTES])
{
	/* the trampoline is in the kernel's text, well within 2 GiB of the site */
	int32_t rel = (int32_t)((uintptr_t)func_trampoline - (code + SITE_BYTES));

	insn[0] = OP_CALL_REL32;
	memcpy(insn + 1, &rel, sizeof(rel));
}

static bool traced(uintptr_t code)
{
	return *(const uint8_t *)code == OP_CALL_REL32;
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

/* A change of func_trace_set(), and the number of functions traced after it. */
struct change {
	uint32_t op;
	const char *list;
	size_t len;
	uint32_t traced; /* out */
};

/*
 * Every other CPU stopped (smp_stop_others()): rewrites the sites of the
 * functions the list matches. A stopped CPU waits at an instruction
 * boundary, never inside a site's one instruction, and serialises before
 * it runs on, so the five bytes need not change in one store.
 */
static void change_sites(void *arg)
{
	struct change *c = arg;

	c->traced = 0;
	for (uint32_t i = 0; i < ksyms_total(); i++) {
		uint64_t addr;
		const char *name = ksyms_at(i, &addr);
		uint8_t want[SITE_BYTES];

		if (!site_of(i)) {
			continue;
		}
		if (!matches(c->list, c->len, name)) {
			c->traced += traced(addr);
			continue;
		}
		if (c->op == TTRACE_FUNC_ON) {
			call_from(addr, want);
			c->traced++;
		} else {
			memcpy(want, nop5, SITE_BYTES);
		}
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
static int check(uint32_t op, const char *list, size_t len)
{
	const char *at = list, *p;
	size_t plen;
	bool any = false;

	if (op != TTRACE_FUNC_ON && op != TTRACE_FUNC_OFF) {
		return -EINVAL;
	}
	while (func_glob_next(&at, list + len, &p, &plen)) {
		if (!func_glob_valid(p, plen)) {
			return -EINVAL;
		}
		if (op == TTRACE_FUNC_ON && !any_traceable(p, plen)) {
			return -ENOENT;
		}
		any = true;
	}
	return op == TTRACE_FUNC_ON && !any ? -EINVAL : 0;
}

int func_trace_set(uint32_t op, const char *list, size_t len)
{
	struct change c = {.op = op, .list = list, .len = len};

	mutex_lock(&func_mutex);
	int err = make_table();
	if (!err) {
		err = check(op, list, len);
	}
	if (!err) {
		err = smp_stop_others(change_sites, &c);
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

		*info = (struct ttrace_func_info){
		    .missed = __atomic_load_n(&missed, __ATOMIC_RELAXED),
		    .why = !site_of(i)	  ? why_not(name)
			   : traced(addr) ? TTRACE_FUNC_WHY_ON
					  : TTRACE_FUNC_WHY_OFF,
		};
		size_t len = strlen(name);

		len = len < sizeof(info->name) ? len : sizeof(info->name) - 1;
		memcpy(info->name, name, len); /* the rest zero, from the compound literal */
	}
	mutex_unlock(&func_mutex);
	return err;
}

void func_trace_hit(uint64_t site, uint64_t caller)
{
	uint32_t cpu = this_cpu()->id;

	if (__atomic_load_n(&busy[cpu], __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&missed, 1, __ATOMIC_RELAXED);
		return;
	}
	/*
	 * The guard is this CPU's own: only an NMI can come in between, and
	 * it leaves the guard as it found it. The fences keep the compiler
	 * from moving the tracepoint's stores out from between the guard's.
	 * The tracepoint is the category's static branch: nothing while func
	 * is off, its straight path while no extra is on, else the slow path
	 * (the only one that calls code outside the tracer, the echo's).
	 */
	__atomic_store_n(&busy[cpu], 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	TTRACE(func_entry, site, caller);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&busy[cpu], 0, __ATOMIC_RELAXED);
}
