/*
 * sys_system: time, yielding, machine and scheduler information, and
 * powering off.
 */
#include "abi/errno.h"
#include "abi/proc.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/timer.h"
#include "cap/cspace.h"
#include "init/boot_info.h"
#include "proc/loader.h"
#include "mm/heap.h"
#include "mm/pmm.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "sched/watchdog.h"
#include "syscall/syscall.h"

#define THREAD_LIST_MAX 256

int64_t sys_yield(struct trap_frame *f)
{
	(void)f;
	schedule();
	return 0;
}

int64_t sys_clock_ns(struct trap_frame *f)
{
	(void)f;
	return (int64_t)timer_now_ns();
}

int64_t sys_sleep_ns(struct trap_frame *f)
{
	return sched_sleep(SYSARG0(f));
}

int64_t sys_sys_info(struct trap_frame *f)
{
	struct sys_info info = {0};
	uint64_t now = timer_now_ns();

	info.ncpus = ncpus;
	info.nprocs = process_count();
	info.frames_free = pmm_free_count();
	info.frames_total = pmm_total_count();
	info.frames_reserved = pmm_reserve_count();
	info.pmm_lock_takings = pmm_lock_takings();
	info.heap_lock_takings = heap_lock_takings();
	info.uptime_ns = now;
	info.tsc_hz = timer_tsc_hz();
	for (uint32_t i = 0; i < ncpus && i < SYS_INFO_CPUS; i++) {
		struct cpu *c = &cpus[i];
		struct thread *running = __atomic_load_n(&c->current, __ATOMIC_RELAXED);
		uint64_t idle = __atomic_load_n(&c->idle_ns, __ATOMIC_RELAXED);
		if (running == c->idle) {
			idle += now - __atomic_load_n(&running->run_start_ns, __ATOMIC_RELAXED);
		}
		struct watchdog_cpu w;
		watchdog_cpu_state(i, &w);
		info.cpu_busy_ns[i] = now > idle ? now - idle : 0;
		/* A stuck CPU is not idling, whatever thread it runs: it says which. */
		info.cpu_running_tid[i] = running == c->idle && !w.stuck_ns ? 0 : running->tid;
		info.cpu_stuck_ms[i] = w.stuck_ns / 1000000 > UINT32_MAX
					   ? UINT32_MAX
					   : (uint32_t)(w.stuck_ns / 1000000);
		info.cpu_flags[i] = w.irqs_masked ? SYS_CPU_IRQS_MASKED : 0;
		info.cpu_late_nmis[i] = w.late_nmis;
		info.cpu_ready[i] = __atomic_load_n(&c->rq.nready, __ATOMIC_RELAXED);
	}
	return copy_to_user(SYSARG0(f), &info, sizeof(info));
}

int64_t sys_thread_list(struct trap_frame *f)
{
	uint64_t max = SYSARG1(f);

	if (max > THREAD_LIST_MAX) {
		max = THREAD_LIST_MAX;
	}
	struct thread_info *list = kmalloc(THREAD_LIST_MAX * sizeof(*list));
	if (!list) {
		return -ENOMEM;
	}
	uint32_t n = process_list_threads(list, (uint32_t)max);
	int err = copy_to_user(SYSARG0(f), list, n * sizeof(*list));
	kfree(list);
	return err ? err : (int64_t)n;
}

int64_t sys_program_list(struct trap_frame *f)
{
	struct program_info list[BOOT_MODULES_MAX];
	uint64_t max = SYSARG1(f) < BOOT_MODULES_MAX ? SYSARG1(f) : BOOT_MODULES_MAX;
	uint32_t n = loader_list(list, (uint32_t)max);
	int err = copy_to_user(SYSARG0(f), list, n * sizeof(list[0]));

	return err ? err : (int64_t)n;
}

int64_t sys_poweroff(struct trap_frame *f)
{
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_CONSOLE,
			     CAP_RIGHT_POWER, &c);

	if (err) {
		return err;
	}
	power_off();
}
