/*
 * oom: who pays when a user page fault is legal but no frame can be had
 * for it. The rules (mm/account.h, "Out of memory") in one place: the
 * tree at its limit pays for its own fault; otherwise the largest user of
 * memory does, so that neither init nor a small tree dies because another
 * took everything.
 */
#ifndef SPOOR_PROC_OOM_H
#define SPOOR_PROC_OOM_H

#include <stdbool.h>
#include <stdint.h>

struct process;

/*
 * p's fault at cr2 (rip) found no memory: kills the tree that pays for
 * it, with one console line. Returns true when that is p's own tree (p
 * returns to user space only to die); false when it was another, and the
 * caller has slept a moment here while the victim's memory comes back:
 * the fault is to be taken again. Init never pays: with nobody else to
 * kill, it waits. May block; interrupts on.
 */
bool oom_fault(struct process *p, uint64_t cr2, uint64_t rip);

#endif
