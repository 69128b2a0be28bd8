/*
 * sys_trace: the trace capabilities — mapping trace memory, changing
 * what is traced and arming the wake-up (abi/trace.h) — and the test
 * workload of known count.
 */
#include <stddef.h>

#include "abi/errno.h"
#include "abi/mem.h"
#include "abi/trace.h"
#include "abi/trace_pred.h"
#include "cap/cspace.h"
#include "init/options.h"
#include "lib/ksyms.h"
#include "lib/string.h"
#include "mm/usercopy.h"
#include "mm/uvm.h"
#include "proc/process.h"
#include "syscall/syscall.h"
#include "trace/func.h"
#include "trace/probe.h"
#include "trace/ktrace.h"
#include "trace/notes.h"
#include "trace/uevent_table.h"
#include "trace/wake.h"
#include "trace/wedge_test.h"

/* The capability each TTRACE_MAP_* needs, and what it maps with which protection. */
static int map_source(struct process *p, uint32_t slot, uint32_t what, struct memobj **obj,
		      uint32_t *prot)
{
	static const struct {
		uint32_t kind, rights, prot;
	} need[] = {
	    [TTRACE_MAP_AREA] = {CAP_KIND_TRACE_READ, CAP_RIGHT_READ, PROT_READ},
	    [TTRACE_MAP_READER] = {CAP_KIND_TRACE_CONTROL, CAP_RIGHT_WRITE, PROT_READ | PROT_WRITE},
	    [TTRACE_MAP_UEVENT_STATUS] = {CAP_KIND_UEVENT, 0, PROT_READ},
	};
	struct cap c;

	if (what >= sizeof(need) / sizeof(need[0])) {
		return -EINVAL;
	}
	int err = cspace_get(&p->caps, slot, need[what].kind, need[what].rights, &c);
	if (err) {
		return err;
	}
	cap_put(&c);
	*obj = what == TTRACE_MAP_AREA	   ? ttrace_area_object()
	       : what == TTRACE_MAP_READER ? ttrace_reader_object()
					   : uevent_status_object();
	*prot = need[what].prot;
	return *obj ? 0 : -ENOMEM; /* tracing could not be set up */
}

int64_t sys_trace_map(struct trap_frame *f)
{
	struct process *p = process_current();
	struct memobj *obj;
	uint32_t prot;
	uint64_t addr = 0;

	int err = map_source(p, sysarg_u32(SYSARG0(f)), sysarg_u32(SYSARG1(f)), &obj, &prot);
	if (err) {
		return err;
	}
	/* prot is also the most the mapping may ever get: read-only stays read-only. */
	err = uvm_map_frame(&p->vm, obj, SYSARG2(f), prot, prot, &addr);
	return err ? err : (int64_t)addr;
}

int syscall_need_trace_control(uint64_t slot)
{
	return cspace_check(&process_current()->caps, sysarg_u32(slot), CAP_KIND_TRACE_CONTROL,
			    CAP_RIGHT_WRITE);
}

int64_t sys_trace_control(struct trap_frame *f)
{
	int err = syscall_need_trace_control(SYSARG0(f));

	if (err) {
		return err;
	}
	return ttrace_control(sysarg_u32(SYSARG1(f)), SYSARG2(f));
}

int64_t sys_trace_filter(struct trap_frame *f)
{
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
	uint64_t kind = SYSARG1(f), n = SYSARG3(f);

	/* the sizes first, as trace_wake's watermark: no capability makes them right */
	if (kind > UINT16_MAX || n > TTRACE_PRED_INSNS_MAX) {
		return -EINVAL;
	}
	int err = syscall_need_trace_control(SYSARG0(f));
	if (err) {
		return err;
	}
	/* copied before the check: the kernel checks what it will run, never user memory */
	if (n && copy_from_user(insn, SYSARG2(f), n * sizeof(insn[0]))) {
		return -EFAULT;
	}
	return ttrace_filter((uint16_t)kind, insn, (uint32_t)n);
}

int64_t sys_trace_trigger(struct trap_frame *f)
{
	struct ttrace_trigger t;
	uint64_t op = SYSARG1(f), kind = SYSARG2(f), user = SYSARG3(f);

	/* the numbers first, as trace_filter's: no capability makes them right */
	if (op > TTRACE_TRIG_GET || kind > UINT16_MAX) {
		return -EINVAL;
	}
	int err = syscall_need_trace_control(SYSARG0(f));
	if (err) {
		return err;
	}
	/* copied before the check: the kernel checks what it will run, never user memory */
	if (op == TTRACE_TRIG_SET && copy_from_user(&t, user, sizeof(t))) {
		return -EFAULT;
	}
	err = ttrace_trigger((uint32_t)op, (uint16_t)kind, &t);
	if (!err && op == TTRACE_TRIG_GET && copy_to_user(user, &t, sizeof(t))) {
		return -EFAULT;
	}
	return err;
}

int64_t sys_trace_note(struct trap_frame *f)
{
	uint8_t note[TTRACE_NOTE_BYTES];
	uint64_t op = SYSARG1(f), kind = SYSARG2(f), user = SYSARG3(f);
	bool set = op == TTRACE_NOTE_SET_FILTER || op == TTRACE_NOTE_SET_TRIGGER;

	/* the numbers first, as trace_filter's: no capability makes them right */
	if (op > TTRACE_NOTE_GET_TRIGGER || kind > UINT16_MAX) {
		return -EINVAL;
	}
	int err = syscall_need_trace_control(SYSARG0(f));
	if (err) {
		return err;
	}
	/* copied outside the lock: a fault on user memory never happens under it */
	if (set && copy_from_user(note, user, sizeof(note))) {
		return -EFAULT;
	}
	err = notes_copy((uint32_t)op, (uint16_t)kind, note);
	if (!err && !set && copy_to_user(user, note, sizeof(note))) {
		return -EFAULT;
	}
	return err;
}

/*
 * inject=recwedge: an arming comes from a recording's wait, so the slot
 * wedged then lies inside that recording's range.
 */
static void recwedge(void)
{
	if (kopts.inject == INJECT_RECWEDGE) {
		ttrace_wedge_idle();
	}
}

int64_t sys_trace_wake(struct trap_frame *f)
{
	struct process *p = process_current();
	uint64_t mark = SYSARG2(f);
	uint64_t entries = ttrace_ring_entries();
	struct cap ep;

	/* The watermark first, as trace_map's what: an argument no capability makes right. */
	if (!entries) {
		return -ENOMEM; /* tracing could not be set up: no ring to watch */
	}
	if (!mark || mark >= entries) {
		return -EINVAL;
	}
	int err = syscall_need_trace_control(SYSARG0(f));
	if (err) {
		return err;
	}
	/* Only an endpoint the caller receives from: a signal wakes its receiver. */
	err = cspace_get(&p->caps, sysarg_u32(SYSARG1(f)), CAP_KIND_ENDPOINT, CAP_RIGHT_READ, &ep);
	if (err) {
		return err;
	}
	ttrace_wake_arm(ep.obj, mark);
	cap_put(&ep);
	recwedge();
	return 0;
}

int64_t sys_trace_test(struct trap_frame *f)
{
	uint64_t n = SYSARG0(f);
	int64_t emitted = 0;

	if (n > TTRACE_TEST_MAX) {
		return -EINVAL;
	}
	for (uint64_t seq = 0; seq < n; seq++) {
		/* The site says whether it was on: the result counts exactly what was emitted. */
		emitted += TTRACE_TRIED(test_tick, seq);
	}
	return emitted;
}

int64_t sys_ksym(struct trap_frame *f)
{
	uint64_t offset;
	const char *name = ksyms_lookup(SYSARG0(f), &offset);
	uint64_t size = SYSARG2(f);

	if (!name) {
		return -ENOENT;
	}
	size_t len = strlen(name) + 1;
	if (len > size) {
		return -E2BIG;
	}
	int err = copy_to_user(SYSARG1(f), name, len);
	/* an offset is below the kernel's text size: positive as an int64_t */
	return err ? err : (int64_t)offset;
}

int64_t sys_func_info(struct trap_frame *f)
{
	struct ttrace_func_info info;
	int err = func_trace_info(sysarg_u32(SYSARG0(f)), &info);

	return err ? err : copy_to_user(SYSARG1(f), &info, sizeof(info));
}

int64_t sys_trace_func(struct trap_frame *f)
{
	/* the longest list: patterns of the longest, one space between */
	char list[4 * (TTRACE_FUNC_PATTERN_MAX + 1)];
	uint64_t len = SYSARG3(f);
	int err = syscall_need_trace_control(SYSARG0(f));

	if (err) {
		return err;
	}
	if (len > sizeof(list)) {
		return -E2BIG;
	}
	err = copy_from_user(list, SYSARG2(f), len);
	return err ? err : func_trace_set(sysarg_u32(SYSARG1(f)), list, len);
}

int64_t sys_probe_info(struct trap_frame *f)
{
	struct ttrace_probe_info info;
	int err = probe_info(sysarg_u32(SYSARG0(f)), &info);

	return err ? err : copy_to_user(SYSARG1(f), &info, sizeof(info));
}

int64_t sys_trace_probe(struct trap_frame *f)
{
	struct ttrace_probe_spec spec;
	int err = syscall_need_trace_control(SYSARG0(f));

	if (!err) {
		err = copy_from_user(&spec, SYSARG2(f), sizeof(spec));
	}
	if (err) {
		return err;
	}
	int64_t result = probe_set(sysarg_u32(SYSARG1(f)), &spec);
	/* The refusal's reason goes back in the caller's spec. */
	if (result == -EINVAL && spec.why) {
		err = copy_to_user(SYSARG2(f) + offsetof(struct ttrace_probe_spec, why), &spec.why,
				   sizeof(spec.why));
	}
	return err ? err : result;
}
