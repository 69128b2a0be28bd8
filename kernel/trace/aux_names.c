/*
 * aux_names: the kernel's writes of names into the aux ring (see
 * aux_names.h). aux_lock serialises them (aux_write.h, thread context
 * only); it is a leaf.
 */
#include "trace/aux_names.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "trace/area.h"
#include "trace/aux_write.h"

struct name_holds names;
static struct spinlock aux_lock = SPINLOCK_INIT;

uint64_t ttrace_aux_name(uint16_t tag, uint64_t id, const char *name)
{
	struct ttrace_aux_item it = {
	    .id = id,
	    .ts = rdtsc(),
	    .str = name,
	    .len = (uint32_t)strlen(name),
	    .tag = tag,
	    .cpu = (uint8_t)this_cpu()->id,
	};
	uint64_t ref = 0;

	if (!area.hdr) {
		return 0;
	}
	uint64_t flags = spin_lock_irqsave(&aux_lock);
	struct ttrace_aux_keeper keeper = name_holds_keeper(&names);

	if (!ttrace_aux_write_keeping(&area, &it, &keeper, &ref) && tag == TTRACE_AUX_PROC) {
		name_holds_add(&names, (uint32_t)id, ref);
	}
	spin_unlock_irqrestore(&aux_lock, flags);
	return ref;
}

void ttrace_proc_freed(uint32_t pid)
{
	if (!area.hdr) {
		return;
	}
	uint64_t flags = spin_lock_irqsave(&aux_lock);
	name_holds_freed(&names, pid);
	spin_unlock_irqrestore(&aux_lock, flags);
}
