/*
 * percpu: the per-CPU blocks. They live in the kernel image, so every CPU
 * has its stacks before the heap exists.
 */
#include "arch/x86_64/percpu.h"

#include "arch/x86_64/cpu.h"

struct cpu cpus[MAX_CPUS];
uint32_t ncpus = 1;
static bool gs_ready; /* [a] the boot CPU has run percpu_init() */

void percpu_init(struct cpu *c)
{
	c->self = c;
	gdt_init_cpu(c);
	wrmsr(MSR_GS_BASE, (uintptr_t)c);
	wrmsr(MSR_KERNEL_GS, 0);
	__atomic_store_n(&gs_ready, true, __ATOMIC_RELEASE);
}

uint32_t percpu_current_id(void)
{
	return __atomic_load_n(&gs_ready, __ATOMIC_ACQUIRE) ? this_cpu()->id : 0;
}
