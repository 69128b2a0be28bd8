/*
 * sys_trace: the trace capabilities — mapping trace memory and changing
 * what is traced (abi/trace.h) — and the test workload of known count.
 */
#include "abi/errno.h"
#include "abi/mem.h"
#include "abi/trace.h"
#include "cap/cspace.h"
#include "mm/uvm.h"
#include "proc/process.h"
#include "syscall/syscall.h"
#include "trace/trace.h"

int64_t sys_trace_map(struct trap_frame *f)
{
	struct process *p = process_current();
	uint32_t what = sysarg_u32(SYSARG1(f));
	bool reader = what == TTRACE_MAP_READER;
	struct cap c;
	uint64_t addr = 0;

	if (what != TTRACE_MAP_AREA && !reader) {
		return -EINVAL;
	}
	int err = reader ? cspace_get(&p->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_TRACE_CONTROL,
				      CAP_RIGHT_WRITE, &c)
			 : cspace_get(&p->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_TRACE_READ,
				      CAP_RIGHT_READ, &c);
	if (err) {
		return err;
	}
	cap_put(&c);
	struct memobj *obj = reader ? ttrace_reader_object() : ttrace_area_object();
	if (!obj) {
		return -ENOMEM; /* tracing could not be set up */
	}
	uint32_t prot = reader ? PROT_READ | PROT_WRITE : PROT_READ;
	err = uvm_map_frame(&p->vm, obj, SYSARG2(f), prot, prot, &addr);
	return err ? err : (int64_t)addr;
}

int64_t sys_trace_control(struct trap_frame *f)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)),
			     CAP_KIND_TRACE_CONTROL, CAP_RIGHT_WRITE, &c);

	if (err) {
		return err;
	}
	cap_put(&c);
	return ttrace_control(sysarg_u32(SYSARG1(f)), SYSARG2(f));
}

int64_t sys_trace_test(struct trap_frame *f)
{
	uint64_t n = SYSARG0(f);
	int64_t emitted = 0;

	if (n > TTRACE_TEST_MAX) {
		return -EINVAL;
	}
	for (uint64_t seq = 0; seq < n; seq++) {
		/* The mask is read once an event: the result counts exactly what was emitted. */
		if (TTRACE_ENABLED &&
		    __atomic_load_n(&ttrace_mask, __ATOMIC_RELAXED) & TTRACE_CAT(TEST)) {
			ttrace_emit(TTRACE_KIND_test_tick, &seq, 1);
			emitted++;
		}
	}
	return emitted;
}
