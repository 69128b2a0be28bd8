/*
 * probe: see probe.h. A probe's slot i owns the copy at probe_xol + 16 i.
 * Slots change only under probe_mutex and with every other CPU stopped
 * (smp_stop_others()), the int3 written or taken away in the same stop,
 * so a hit, which runs with interrupts off from its int3 to the end of
 * its step, reads a slot that cannot change under it.
 */
#include "trace/probe.h"

#include <stddef.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/restart.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/static_branch.h"
#include "lib/ksyms.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "sched/wait.h"
#include "trace/aux_names.h"
#include "trace/func.h"
#include "trace/func_guard.h"
#include "trace/ktrace.h"
#include "trace/probe_insn.h"
#include "trace/probe_table.h"

#define INT3	    0xcc /* SDM 2A INT3 */
#define XOL_BYTES   16	 /* probe_xol.S: a slot, more than the longest instruction */
#define INSN_MAX    15	 /* SDM 2A 2.3.11 */
#define ENTRY_NOP   5	 /* the function tracer's site (abi/trace_func.h) */
#define DESCRIPTION (TTRACE_PROBE_NAME_MAX + TTRACE_PROBE_REGS_MAX * 6 + 2)

_Static_assert(TTRACE_PROBE_MAX == 16, "probe_xol.S's PROBE_XOL_SLOTS");

extern const uint8_t probe_xol[]; /* probe_xol.S */

struct probe {
	uint64_t addr;	   /* the probed instruction; 0: a free slot */
	uint64_t name_ref; /* the aux reference of "NAME(REG,...)" */
	uint64_t hits;	   /* [a] */
	uint32_t offset;   /* addr's offset into its function */
	uint8_t len;	   /* the instruction's length */
	uint8_t fix;	   /* enum probe_fix */
	uint8_t orig;	   /* the byte the int3 took the place of */
	uint8_t nregs;
	uint8_t regs[TTRACE_PROBE_REGS_MAX];
	char symbol[TTRACE_PROBE_SYM_MAX];
	char name[TTRACE_PROBE_NAME_MAX];
};

static struct mutex probe_mutex = {.wq = WAITQ_INIT(probe_mutex.wq)};
/* [probe_mutex, and changed only with every other CPU stopped] read by the hits */
static struct probe probes[TTRACE_PROBE_MAX];
static uint64_t missed; /* [a] hits the guard kept from being recorded */

/* A CPU's step under way: only that CPU, interrupts off, reads and writes its own. */
static struct step {
	uint64_t flags; /* the IF and TF the probed code had */
	uint32_t slot;	/* the probe's slot + 1; 0: no step under way */
} steps[MAX_CPUS];

/* Where each TTRACE_PROBE_REG_* is in a trap frame (rip is the probe's address instead). */
static const uint8_t reg_at[TTRACE_PROBE_REG_LIMIT] = {
    [TTRACE_PROBE_REG_rdi] = offsetof(struct trap_frame, rdi),
    [TTRACE_PROBE_REG_rsi] = offsetof(struct trap_frame, rsi),
    [TTRACE_PROBE_REG_rdx] = offsetof(struct trap_frame, rdx),
    [TTRACE_PROBE_REG_rcx] = offsetof(struct trap_frame, rcx),
    [TTRACE_PROBE_REG_r8] = offsetof(struct trap_frame, r8),
    [TTRACE_PROBE_REG_r9] = offsetof(struct trap_frame, r9),
    [TTRACE_PROBE_REG_rax] = offsetof(struct trap_frame, rax),
    [TTRACE_PROBE_REG_rbx] = offsetof(struct trap_frame, rbx),
    [TTRACE_PROBE_REG_rbp] = offsetof(struct trap_frame, rbp),
    [TTRACE_PROBE_REG_r12] = offsetof(struct trap_frame, r12),
    [TTRACE_PROBE_REG_r13] = offsetof(struct trap_frame, r13),
    [TTRACE_PROBE_REG_r14] = offsetof(struct trap_frame, r14),
    [TTRACE_PROBE_REG_r15] = offsetof(struct trap_frame, r15),
    [TTRACE_PROBE_REG_rsp] = offsetof(struct trap_frame, rsp),
    [TTRACE_PROBE_REG_rip] = offsetof(struct trap_frame, rip),
    [TTRACE_PROBE_REG_flags] = offsetof(struct trap_frame, rflags),
};

static const char *const reg_names[TTRACE_PROBE_REG_LIMIT] = {
#define REG_NAME_(n, name) [n] = #name,
    TTRACE_PROBE_REGS(REG_NAME_)
#undef REG_NAME_
};

static uintptr_t xol_of(uint32_t slot)
{
	return (uintptr_t)probe_xol + slot * XOL_BYTES;
}

/* Writes n bytes of kernel text: it is mapped read-only, its direct-map alias writable. */
static void write_text(uintptr_t at, const void *bytes, size_t n)
{
	memcpy(phys_to_virt(virt_to_phys((const void *)at)), bytes, n);
}

/* A name of letters, digits, '_', '.' and '+', 1 to TTRACE_PROBE_NAME_MAX - 1 of them. */
static bool valid_name(const char *s, size_t size)
{
	size_t n = 0;

	while (n < size && s[n]) {
		n++;
	}
	if (!n || n == size) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '+')) {
			return false;
		}
	}
	return true;
}

/* The function named symbol: its index, or the refusal (no such name, or more than one). */
static uint32_t find_symbol(const char *symbol, uint64_t *addr, uint32_t *index)
{
	uint32_t found = 0;

	for (uint32_t i = 0; i < ksyms_total(); i++) {
		uint64_t a;
		if (!strcmp(ksyms_at(i, &a), symbol)) {
			*addr = a;
			*index = i;
			found++;
		}
	}
	return found == 1 ? TTRACE_PROBE_WHY_NONE
	       : found	  ? TTRACE_PROBE_WHY_AMBIGUOUS
			  : TTRACE_PROBE_WHY_SYMBOL;
}

/*
 * Whether addr lies in code the kernel rewrites (a static branch's site)
 * or restarts (a tracepoint's straight path up to its reservation,
 * restart.h), which a probe's int3 or step would be in the way of.
 */
static bool patched_code(uint64_t addr, uint32_t len)
{
	/* restart_fixup() moves a kernel frame inside a range, past its start, to the start */
	struct trap_frame f = {.rip = addr, .cs = GDT_KERNEL_CODE};

	restart_fixup(&f);
	return f.rip != addr || static_branch_covers(addr, len);
}

/* A probe checked, with its instruction's copy: what probe_set() makes of a spec. */
struct armed {
	struct probe p;
	uint8_t copy[XOL_BYTES];
	uint32_t slot;
};

/* The checks of a TTRACE_PROBE_ON, probe_mutex held: the refusal, or a filled *a. */
static uint32_t check(const struct ttrace_probe_spec *spec, struct armed *a)
{
	struct probe *p = &a->p;
	uint64_t start = 0;
	uint32_t index = 0, size, flags, why;

	if (!probe_table_present()) {
		return TTRACE_PROBE_WHY_NO_TABLE;
	}
	if (spec->nregs > TTRACE_PROBE_REGS_MAX) {
		return TTRACE_PROBE_WHY_REGS;
	}
	for (uint32_t i = 0; i < spec->nregs; i++) {
		if (spec->regs[i] >= TTRACE_PROBE_REG_LIMIT) {
			return TTRACE_PROBE_WHY_REGS;
		}
	}
	if (!valid_name(spec->symbol, sizeof(spec->symbol)) ||
	    !valid_name(spec->name, sizeof(spec->name))) {
		return TTRACE_PROBE_WHY_NAME;
	}
	why = find_symbol(spec->symbol, &start, &index);
	if (why) {
		return why;
	}
	/* Only what the function tracer may trace, so never the tracer, the traps or the patcher.
	 */
	if (!func_trace_has_site(index) || !probe_table_function(start, &size, &flags)) {
		return TTRACE_PROBE_WHY_NOTRACE;
	}
	uint32_t offset = spec->has_offset ? spec->offset : ENTRY_NOP;
	if (!offset) {
		return TTRACE_PROBE_WHY_ENTRY_NOP;
	}
	if (offset >= size) {
		return TTRACE_PROBE_WHY_PAST_END;
	}
	if (offset < ENTRY_NOP || !probe_table_boundary(start + offset)) {
		return TTRACE_PROBE_WHY_INSIDE;
	}
	if (flags & PROBE_TABLE_NMI) {
		return TTRACE_PROBE_WHY_NMI;
	}
	uint64_t addr = start + offset;
	uint32_t len = probe_table_length(addr, start + size);
	if (len > INSN_MAX) {
		return TTRACE_PROBE_WHY_INSIDE;
	}
	if (patched_code(addr, len)) {
		return TTRACE_PROBE_WHY_PATCHED;
	}
	struct probe_insn insn;
	probe_insn_decode((const uint8_t *)addr, len, &insn);
	if (insn.refused) {
		return TTRACE_PROBE_WHY_INSN;
	}
	*p = (struct probe){.addr = addr,
			    .offset = offset,
			    .len = (uint8_t)len,
			    .fix = insn.fix,
			    .orig = *(const uint8_t *)addr,
			    .nregs = (uint8_t)spec->nregs};
	memcpy(p->regs, spec->regs, sizeof(p->regs));
	memcpy(p->symbol, spec->symbol, sizeof(p->symbol));
	memcpy(p->name, spec->name, sizeof(p->name));
	a->slot = TTRACE_PROBE_MAX;
	for (uint32_t i = 0; i < TTRACE_PROBE_MAX; i++) {
		if (probes[i].addr == addr ||
		    (probes[i].addr && !strcmp(probes[i].name, p->name))) {
			return TTRACE_PROBE_WHY_TAKEN;
		}
		if (!probes[i].addr && a->slot == TTRACE_PROBE_MAX) {
			a->slot = i;
		}
	}
	if (a->slot == TTRACE_PROBE_MAX) {
		return TTRACE_PROBE_WHY_FULL;
	}
	/* The copy: the same bytes, a rip-relative displacement reaching from the slot what it did.
	 */
	memset(a->copy, INT3, sizeof(a->copy));
	memcpy(a->copy, (const void *)addr, len);
	if (insn.disp_at >= 0) {
		int32_t disp;
		memcpy(&disp, a->copy + insn.disp_at, sizeof(disp));
		int64_t moved = (int64_t)disp + (int64_t)(addr - xol_of(a->slot));
		if (moved != (int32_t)moved) {
			return TTRACE_PROBE_WHY_INSN;
		}
		disp = (int32_t)moved;
		memcpy(a->copy + insn.disp_at, &disp, sizeof(disp));
	}
	return TTRACE_PROBE_WHY_NONE;
}

/* Every other CPU stopped: the probe goes into its slot, and its int3 into the code. */
static void arm(void *arg)
{
	struct armed *a = arg;
	static const uint8_t int3 = INT3;

	probes[a->slot] = a->p;
	write_text(a->p.addr, &int3, 1);
}

/* Every other CPU stopped: the probes named (every one for an empty name) go. */
static void disarm(void *arg)
{
	const char *name = arg;

	for (uint32_t i = 0; i < TTRACE_PROBE_MAX; i++) {
		struct probe *p = &probes[i];
		if (p->addr && (!name[0] || !strcmp(p->name, name))) {
			write_text(p->addr, &p->orig, 1);
			p->addr = 0;
		}
	}
}

static int count(void)
{
	int n = 0;

	for (uint32_t i = 0; i < TTRACE_PROBE_MAX; i++) {
		n += probes[i].addr != 0;
	}
	return n;
}

/* Appends t to s (size bytes, *n used so far), cut to fit. */
static void append(char *s, size_t size, size_t *n, const char *t)
{
	while (*t && *n + 1 < size) {
		s[(*n)++] = *t++;
	}
	s[*n] = '\0';
}

/* The aux string of a probe's events: "NAME(REG,REG,...)". */
static uint64_t describe(const struct probe *p, uint32_t slot)
{
	char s[DESCRIPTION];
	size_t n = 0;

	append(s, sizeof(s), &n, p->name);
	append(s, sizeof(s), &n, "(");
	for (uint32_t i = 0; i < p->nregs; i++) {
		append(s, sizeof(s), &n, i ? "," : "");
		append(s, sizeof(s), &n, reg_names[p->regs[i]]);
	}
	append(s, sizeof(s), &n, ")");
	return ttrace_aux_name(TTRACE_AUX_TEXT, slot, s);
}

static int set_on(struct ttrace_probe_spec *spec)
{
	struct armed a;
	uint32_t why = check(spec, &a);

	spec->why = why;
	if (why) {
		return -EINVAL;
	}
	/* No CPU runs the slot's copy: it is no probe's, and a hit ends before any stop. */
	write_text(xol_of(a.slot), a.copy, XOL_BYTES);
	a.p.name_ref = describe(&a.p, a.slot);
	int err = smp_stop_others(arm, &a);
	return err ? err : count();
}

static int set_off(struct ttrace_probe_spec *spec)
{
	bool any = false;

	spec->name[sizeof(spec->name) - 1] = '\0';
	for (uint32_t i = 0; i < TTRACE_PROBE_MAX; i++) {
		any |= probes[i].addr && (!spec->name[0] || !strcmp(probes[i].name, spec->name));
	}
	if (!any) {
		return spec->name[0] ? -ENOENT : 0;
	}
	int err = smp_stop_others(disarm, spec->name);
	return err ? err : count();
}

int probe_set(uint32_t op, struct ttrace_probe_spec *spec)
{
	int err;

	spec->why = TTRACE_PROBE_WHY_NONE;
	if (op != TTRACE_PROBE_ON && op != TTRACE_PROBE_OFF) {
		return -EINVAL;
	}
	mutex_lock(&probe_mutex);
	err = op == TTRACE_PROBE_ON ? set_on(spec) : set_off(spec);
	mutex_unlock(&probe_mutex);
	return err;
}

int probe_info(uint32_t i, struct ttrace_probe_info *info)
{
	if (i >= TTRACE_PROBE_MAX) {
		return -ENOENT;
	}
	mutex_lock(&probe_mutex);
	const struct probe *p = &probes[i];
	*info = (struct ttrace_probe_info){
	    .missed = __atomic_load_n(&missed, __ATOMIC_RELAXED),
	};
	if (p->addr) {
		info->addr = p->addr;
		info->hits = __atomic_load_n(&p->hits, __ATOMIC_RELAXED);
		info->offset = p->offset;
		info->nregs = p->nregs;
		info->len = p->len;
		memcpy(info->regs, p->regs, sizeof(info->regs));
		memcpy(info->symbol, p->symbol, sizeof(info->symbol));
		memcpy(info->name, p->name, sizeof(info->name));
	}
	mutex_unlock(&probe_mutex);
	return 0;
}

/* The probe at addr, or NULL. */
static struct probe *probe_at(uint64_t addr)
{
	for (uint32_t i = 0; i < TTRACE_PROBE_MAX; i++) {
		if (probes[i].addr == addr) {
			return &probes[i];
		}
	}
	return NULL;
}

static void record(const struct probe *p, const struct trap_frame *f, uint32_t cpu)
{
	uint64_t v[TTRACE_PROBE_REGS_MAX] = {0};

	/*
	 * The guard is the function tracer's: a hit its recording reaches
	 * (the echo's console output) is stepped, not recorded, and counted.
	 */
	if (!func_guard_take(cpu)) {
		__atomic_add_fetch(&missed, 1, __ATOMIC_RELAXED);
		return;
	}
	for (uint32_t i = 0; i < p->nregs; i++) {
		v[i] = p->regs[i] == TTRACE_PROBE_REG_rip
			   ? p->addr
			   : *(const uint64_t *)((const char *)f + reg_at[p->regs[i]]);
	}
	TTRACE(probe, p->name_ref, v[0], v[1], v[2], v[3]);
	func_guard_drop(cpu);
}

bool probe_breakpoint(struct trap_frame *f)
{
	uint64_t at = f->rip - 1;
	struct probe *p = probe_at(at);

	if (!p) {
		if (*(const uint8_t *)at == INT3) {
			return false; /* an int3 of the kernel's own: a bug */
		}
		f->rip = at; /* a probe removed since: its instruction is back */
		return true;
	}
	uint32_t cpu = this_cpu()->id;

	__atomic_add_fetch(&p->hits, 1, __ATOMIC_RELAXED);
	record(p, f, cpu);
	/* Set last: a hit the recording reached has run its whole step by now. */
	steps[cpu] = (struct step){.flags = f->rflags, .slot = (uint32_t)(p - probes) + 1};
	f->rflags = (f->rflags | RFLAGS_TF) & ~RFLAGS_IF;
	f->rip = xol_of((uint32_t)(p - probes));
	return true;
}

bool probe_step(struct trap_frame *f)
{
	struct step *s = &steps[this_cpu()->id];

	if (!s->slot) {
		return false;
	}
	const struct probe *p = &probes[s->slot - 1];
	uintptr_t xol = xol_of(s->slot - 1);

	/* A string instruction with rep steps each round in place: step on to its end. */
	if (f->rip == xol) {
		return true;
	}
	uint64_t next = p->addr + p->len;
	switch (p->fix) {
	case PROBE_FIX_CALL:
		*(uint64_t *)f->rsp = next;
		f->rip = f->rip - xol + p->addr;
		break;
	case PROBE_FIX_ABS_CALL:
		*(uint64_t *)f->rsp = next;
		break;
	case PROBE_FIX_ABSOLUTE:
		break;
	default: /* PROBE_FIX_RELATIVE: the next instruction, or a relative jump's target */
		f->rip = f->rip - xol + p->addr;
		break;
	}
	f->rflags = (f->rflags & ~(RFLAGS_TF | RFLAGS_IF)) | (s->flags & (RFLAGS_TF | RFLAGS_IF));
	s->slot = 0;
	return true;
}
