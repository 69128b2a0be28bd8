/*
 * tree: the spawn tree a caller belongs to, the unit traced's quotas and
 * rate limits count by (abi/traced.h: SAVE, REGISTER). Every process init
 * spawns roots a tree, and whatever it spawns joins it (abi/proc.h), so
 * a program cannot escape its quota by spawning: its children count with
 * it. traced finds the root by walking the parent pids of the kernel's
 * thread list; a parent never changes and a process's children end with
 * it, so the chain up from a live caller is live.
 */
#include <spoor.h>

#include "servers/traced/state.h"
#include "servers/traced/tree.h"

/* Threads the walk looks through: a tree's processes are among the first of a full list. */
#define TREE_THREADS_MAX 512

static struct thread_info threads[TREE_THREADS_MAX]; /* one walk at a time */

/* The parent of pid in the list of n threads: 0 for init, or false if pid is not in it. */
static bool parent_of(long n, uint32_t pid, uint32_t *ppid)
{
	for (long i = 0; i < n; i++) {
		if (threads[i].pid == pid) {
			*ppid = threads[i].ppid;
			return true;
		}
	}
	return false;
}

uint32_t tree_of(uint32_t pid)
{
	long n = sys_thread_list(threads, TREE_THREADS_MAX);
	uint32_t cur = pid, up, above;

	/*
	 * Up until the parent is init (whose own parent is 0). A pid missing
	 * from a truncated list ends the walk where it is: the caller then
	 * counts as a tree of its own, which only a tree of hundreds of
	 * threads can bring about.
	 */
	for (int depth = 0; depth <= PROC_TREE_MAX && parent_of(n, cur, &up) && up; depth++) {
		if (!parent_of(n, up, &above) || !above) {
			break;
		}
		cur = up;
	}
	return cur;
}
