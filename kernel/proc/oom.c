/*
 * oom: the victim of a fault that found no memory (oom.h). Only the choice
 * and the line saying it live here: the trap handler finds the fault, the
 * process table the largest tree, and init restarts a kept server killed
 * so (servers/init/services.c).
 */
#include "proc/oom.h"

#include <stdbool.h>

#include "lib/printk.h"
#include "mm/account.h"
#include "proc/process.h"
#include "sched/sched.h"

#define RETRY_NS 10000000ull /* while a killed tree's memory comes back */
#define KIB	 1024

bool oom_fault(struct process *p, uint64_t cr2, uint64_t rip)
{
	static uint32_t last_victim; /* [a] said once, though the retries find it again */
	bool kept = account_may_use_reserve(p->acct);
	bool init = !p->ppid;
	const char *why = "its tree is at its limit";
	struct process *victim = NULL;

	/*
	 * An ordinary tree only ever competes with the ordinary ones: the
	 * kept trees' memory is not its to take. Init and a kept server look
	 * at every tree but init's, their own included.
	 */
	if (kept || !account_at_limit(p->acct)) {
		victim = process_largest_tree(kept);
		why = victim ? "its tree uses the most memory" : "no tree uses more";
	}
	bool own = !init && (!victim || victim == p->tree_root);
	if (own) {
		printk("pid %u (%s) killed: out of memory at 0x%lx rip=0x%lx; %s, so its tree (pid "
		       "%u) is killed\n",
		       p->pid, p->name, cr2, rip, why, p->tree_root->pid);
		process_kill_tree(p, EXIT_NO_MEMORY);
	} else if (victim) {
		uint64_t used = __atomic_load_n(&victim->acct->used, __ATOMIC_RELAXED);
		process_kill_tree(victim, EXIT_NO_MEMORY);
		uint32_t said = __atomic_exchange_n(&last_victim, victim->pid, __ATOMIC_RELAXED);
		if (said != victim->pid) {
			printk("pid %u (%s) is out of memory at 0x%lx: killed tree %u (%s), "
			       "the largest user of memory (%lu KiB)\n",
			       p->pid, p->name, cr2, victim->pid, victim->name, used / KIB);
		}
	}
	if (victim) {
		process_put(victim);
	}
	if (!own) {
		sched_sleep(RETRY_NS); /* then the fault again; init waits so when nobody can pay */
	}
	return own;
}
