/*
 * cpu_id: the id of the CPU running this, one load through %gs, for code
 * that cannot include percpu.h (spinlock.h, which percpu.h includes for
 * struct cpu's locks). percpu.h asserts that PERCPU_ID is where struct
 * cpu keeps the id.
 */
#ifndef SPOOR_ARCH_CPU_ID_H
#define SPOOR_ARCH_CPU_ID_H

#include <stdint.h>

/* The byte offset of struct cpu's id (percpu.h). */
#define PERCPU_ID 24

/*
 * this_cpu()->id without this_cpu()'s load of the block's address. GS
 * must point at the CPU's block (percpu_init()), which every CPU does
 * before it takes its first lock. Volatile, as this_cpu(): a thread may
 * move to another CPU across a call that schedules, so two loads are
 * never merged.
 */
static inline uint32_t cpu_id_self(void)
{
	uint32_t id;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(PERCPU_ID));
	return id;
}

#endif
