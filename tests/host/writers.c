/*
 * writers: the kernel's writers on the host (see writers.h).
 */
#include "writers.h"

#include <asm/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/trace.h"
#include "trace/ktrace.h"

void host_cpu_enter(struct cpu *c, const struct ttrace_ring *r)
{
	memset(c, 0, sizeof(*c));
	c->self = c;
	c->id = r->cpu;
	c->trace_ring = *r;
	c->trace_head = r->state;
	c->trace_slots = r->slots;
	c->trace_index_mask = r->index_mask;
	c->trace_word1 = (uint64_t)r->cpu << TTRACE_WORD1_CPU_SHIFT;
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)c)) {
		abort();
	}
}

void host_cpu_ids(uint32_t pid, uint32_t tid)
{
	/* relaxed: only this thread and its signal handlers touch its CPU's ids */
	__atomic_store_n(&this_cpu()->trace_ids, pid | (uint64_t)tid << 32, __ATOMIC_RELAXED);
}

bool host_slow_write(struct ttrace_ring *r, const struct ttrace_event *ev)
{
	uint64_t index;

	if (!ttrace_ring_reserve(r, TTRACE_EVENT_SLOTS(ev->nwords), &index)) {
		return false;
	}
	ttrace_ring_commit(r, index, ev);
	return true;
}
