/*
 * process: creation, references, exit and teardown, and the process table
 * that ps reads. Lock order: table_lock, then a process's lock, then the
 * scheduler's locks.
 */
#include "proc/process.h"

#include "abi/errno.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/timer.h"
#include "lib/panic.h"
#include "lib/string.h"
#include "mm/account.h"
#include "mm/heap.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/aux_names.h"
#include "trace/ktrace.h"

static struct spinlock table_lock = SPINLOCK_INIT;
static struct list table = LIST_INIT(table); /* [table_lock] live processes */
static uint32_t nprocs;			     /* [table_lock] */
static uint32_t next_pid = 1;		     /* [a] */

/*
 * Counts a new process into root's tree: false, having changed nothing,
 * when the tree is full. Relaxed, as the decrement in process_teardown():
 * the count guards nothing but itself.
 */
static bool tree_enter(struct process *root)
{
	uint32_t n = __atomic_load_n(&root->tree_procs, __ATOMIC_RELAXED);

	do {
		if (n >= PROC_TREE_MAX) {
			return false;
		}
	} while (!__atomic_compare_exchange_n(&root->tree_procs, &n, n + 1, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/* The account a new process pays with: its tree's, or a new one if it roots a tree. */
static struct mem_account *account_for(struct process *root, uint64_t mem_limit, uint32_t mem_flags)
{
	if (root) {
		account_get(root->acct);
		return root->acct;
	}
	return account_create(mem_limit, mem_flags);
}

int process_create(const char *name, struct process *parent, uint64_t mem_limit, uint32_t mem_flags,
		   struct process **out)
{
	/* A child of the first process (init) roots a tree; any other joins its parent's. */
	struct process *root = parent && parent->ppid ? parent->tree_root : NULL;

	/*
	 * relaxed: a spawn that misses the root's end is by a parent that was
	 * in the table when the root's teardown killed the tree, whose own
	 * teardown then kills the child (process_teardown())
	 */
	if (root && (__atomic_load_n(&root->tree_ended, __ATOMIC_RELAXED) || !tree_enter(root))) {
		return -EAGAIN;
	}
	struct mem_account *acct = account_for(root, mem_limit, mem_flags);
	struct process *p = acct ? kzalloc_for(acct, sizeof(*p)) : NULL;
	if (!p || uvm_init(&p->vm, acct)) {
		kfree(p);
		if (acct) {
			account_put(acct);
		}
		if (root) {
			__atomic_fetch_sub(&root->tree_procs, 1, __ATOMIC_RELAXED);
		}
		return -ENOMEM;
	}
	p->acct = acct;
	p->pid = __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
	p->ppid = parent ? parent->pid : 0;
	for (size_t i = 0; i + 1 < sizeof(p->name) && name[i]; i++) {
		p->name[i] = name[i];
	}
	p->refs = 1;
	p->lock = (struct spinlock)SPINLOCK_INIT;
	list_init(&p->threads);
	waitq_init(&p->exit_wait);
	cspace_init(&p->caps);
	if (root) {
		process_get(root); /* its counter must outlive every process it counts */
		p->tree_root = root;
	} else {
		p->tree_root = p;
		p->tree_procs = 1;
	}

	uint64_t flags = spin_lock_irqsave(&table_lock);
	list_add_tail(&table, &p->table_node);
	nprocs++;
	spin_unlock_irqrestore(&table_lock, flags);
	*out = p;
	return 0;
}

void process_get(struct process *p)
{
	__atomic_fetch_add(&p->refs, 1, __ATOMIC_RELAXED);
}

void process_put(struct process *p)
{
	/* acq_rel: the last put sees everything done through other references */
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL)) {
		return;
	}
	struct list *node;
	ttrace_proc_freed(p->pid);
	while ((node = list_pop(&p->threads))) {
		thread_free(list_entry(node, struct thread, proc_node));
	}
	struct process *root = p->tree_root;
	account_put(p->acct); /* after uvm_destroy() in teardown: its frames hold their own */
	kfree(p);
	if (root != p) {
		process_put(root); /* no deeper: a root's own tree_root is itself */
	}
}

void process_exit(struct process *p, int64_t status)
{
	struct list *pos;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (!p->status_set) {
		p->status_set = true;
		p->exit_status = status;
	}
	p->unstarted = NULL; /* the kill below wakes it, to exit before its first instruction */
	list_for_each(pos, &p->threads)
	{
		struct thread *t = list_entry(pos, struct thread, proc_node);
		if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) != THREAD_EXITED) {
			thread_kill(t);
		}
	}
	spin_unlock_irqrestore(&p->lock, flags);
}

void process_hold_start(struct process *p, struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (!p->status_set) {
		p->unstarted = t;
	}
	spin_unlock_irqrestore(&p->lock, flags);
}

int process_start(struct process *p)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	struct thread *t = p->unstarted;

	/*
	 * Under the lock, as process_exit() clears it: t cannot have run, so
	 * it cannot have exited and been freed, and starts exactly once.
	 */
	p->unstarted = NULL;
	if (t) {
		sched_start(t);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return t ? 0 : -EINVAL;
}

int process_add_thread(struct process *p, struct thread *t)
{
	int err = 0;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (p->state != PROC_ALIVE || p->status_set) {
		err = -EINVAL;
	} else if (p->nthreads >= PROC_THREADS_MAX) {
		err = -EAGAIN;
	} else {
		list_add_tail(&p->threads, &t->proc_node);
		/* relaxed: the switch reads it alone (sched/switch.h) */
		__atomic_store_n(&t->trace_quiet, __atomic_load_n(&p->quiet, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		p->nthreads++;
		p->live_threads++;
		__atomic_fetch_add(&p->unreleased, 1, __ATOMIC_RELAXED);
		process_get(p); /* dropped in process_thread_released() */
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return err;
}

bool process_thread_exited(struct process *p, struct thread *t, int64_t status)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	bool last = --p->live_threads == 0;

	t->exit_status = status;
	if (last && !p->status_set) {
		p->status_set = true;
		p->exit_status = status;
	}
	spin_unlock_irqrestore(&p->lock, flags);

	flags = spin_lock_irqsave(&t->join_wait.lock);
	t->exited = true;
	waitq_wake_all(&t->join_wait);
	spin_unlock_irqrestore(&t->join_wait.lock, flags);
	return last;
}

/* Ends every live process of root's tree with status; table_lock held. */
static void kill_tree(struct process *root, int64_t status)
{
	struct list *pos;

	list_for_each(pos, &table)
	{
		struct process *p = list_entry(pos, struct process, table_node);
		if (p->tree_root == root) {
			process_exit(p, status);
		}
	}
}

void process_teardown(struct process *p)
{
	struct thread *self = thread_current();
	struct list *pos;

	/*
	 * Every other thread must be off its CPU, and so off this address
	 * space, before the page tables go; we leave it ourselves first.
	 * Counted, not looked for on the list: a detached thread leaves the
	 * list, and is freed, as it is released.
	 */
	uint32_t own = self->proc == p ? 1 : 0;
	/* Before leaving it: a switch back to this thread must not load it again. */
	__atomic_store_n(&p->torn_down, true, __ATOMIC_RELAXED);
	if (own) {
		vmm_deactivate();
	}
	/* acquire: pairs with the release in process_thread_released() */
	while (__atomic_load_n(&p->unreleased, __ATOMIC_ACQUIRE) > own) {
		cpu_relax();
	}
	TTRACE(proc_exit, p->pid, p->exit_status);
	uvm_destroy(&p->vm);
	cspace_destroy(&p->caps);

	/*
	 * Its children end with it. None can appear later: every thread of p
	 * has exited, so no spawn of p's is still running, and pids are never
	 * reused, so ppid names p alone. A tree's root ends the whole tree at
	 * once, and shuts it to new processes: ended only through each child's
	 * end in turn, a tree whose processes spawn (a spawn bomb) grew back
	 * from its leaves as fast as it died from its root, and under a
	 * loaded host outlived it for good (test_limits' spawn bomb).
	 */
	uint64_t flags = spin_lock_irqsave(&table_lock);
	list_remove(&p->table_node);
	nprocs--;
	if (p->tree_root == p) {
		__atomic_store_n(&p->tree_ended, true, __ATOMIC_RELAXED);
		kill_tree(p, EXIT_KILLED);
	}
	list_for_each(pos, &table)
	{
		struct process *child = list_entry(pos, struct process, table_node);
		if (child->ppid == p->pid) {
			process_exit(child, EXIT_KILLED);
		}
	}
	spin_unlock_irqrestore(&table_lock, flags);
	__atomic_fetch_sub(&p->tree_root->tree_procs, 1, __ATOMIC_RELAXED);

	flags = spin_lock_irqsave(&p->exit_wait.lock);
	__atomic_store_n(&p->state, PROC_DEAD, __ATOMIC_RELEASE);
	waitq_wake_all(&p->exit_wait);
	spin_unlock_irqrestore(&p->exit_wait.lock, flags);
	process_put(p); /* the reference for being alive */
}

/* Unlinks t's record from p, lock held; the caller frees it after unlocking. */
static void unlink_thread(struct process *p, struct thread *t)
{
	list_remove(&t->proc_node);
	p->nthreads--;
}

/*
 * Joined or detached: nobody may join t any more. Lock held. Returns
 * whether t is already released, and so unlinked for the caller to free
 * after unlocking; if not, its release frees it.
 */
static bool make_unjoinable(struct process *p, struct thread *t)
{
	t->detached = true;
	if (t->released) {
		unlink_thread(p, t);
	}
	return t->released;
}

void process_thread_released(struct thread *t)
{
	struct process *p = t->proc;
	uint8_t *kstack = t->kstack; /* once released, a joiner may free t */
	uint64_t flags = spin_lock_irqsave(&p->lock);
	bool free_now = t->detached;

	t->released = true;
	if (free_now) {
		unlink_thread(p, t);
	}
	/* release: t is off its CPU (on_cpu cleared before); pairs with process_teardown() */
	__atomic_fetch_sub(&p->unreleased, 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&p->lock, flags);
	thread_stack_free(kstack);
	if (free_now) {
		thread_free(t);
	}
	process_put(p); /* the thread's reference: last, as p's final put frees what is left */
}

void process_activate(struct process *p)
{
	/* relaxed: only the thread that set it can be switched to for p after it */
	if (p && !__atomic_load_n(&p->torn_down, __ATOMIC_RELAXED)) {
		vmm_activate(&p->vm.as);
	} else {
		vmm_deactivate();
	}
}

struct process *process_current(void)
{
	return thread_current()->proc;
}

int process_wait(struct process *p, uint64_t deadline_ns, int64_t *status)
{
	int err = 0;
	uint64_t flags = spin_lock_irqsave(&p->exit_wait.lock);

	while (!err && __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PROC_DEAD) {
		if (deadline_ns && timer_now_ns() >= deadline_ns) {
			err = -ETIMEDOUT;
		} else {
			err = waitq_sleep(&p->exit_wait, deadline_ns, WAIT_KILLABLE);
		}
	}
	spin_unlock_irqrestore(&p->exit_wait.lock, flags);
	if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PROC_DEAD) {
		*status = p->exit_status;
		return 0;
	}
	return err;
}

/* Thread tid of p, or NULL; p's lock held. */
static struct thread *find_thread(struct process *p, uint32_t tid)
{
	struct list *pos;

	list_for_each(pos, &p->threads)
	{
		struct thread *t = list_entry(pos, struct thread, proc_node);
		if (t->tid == tid) {
			return t;
		}
	}
	return NULL;
}

int process_join_thread(struct process *p, uint32_t tid, int64_t *status)
{
	struct thread *self = thread_current();
	int err = -ENOENT;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	struct thread *t = find_thread(p, tid);

	if (t) {
		err = t == self || t->joining || t->detached ? -EINVAL : 0;
		t->joining = !err || t->joining;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (err) {
		return err;
	}

	flags = spin_lock_irqsave(&t->join_wait.lock);
	while (!err && !t->exited) {
		err = waitq_sleep(&t->join_wait, 0, WAIT_KILLABLE);
	}
	spin_unlock_irqrestore(&t->join_wait.lock, flags);

	bool free_now = false;
	flags = spin_lock_irqsave(&p->lock);
	if (err) {
		t->joining = false;
	} else {
		*status = t->exit_status;
		free_now = make_unjoinable(p, t);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (free_now) {
		thread_free(t);
	}
	return err;
}

int process_detach_thread(struct process *p, uint32_t tid)
{
	int err = -ENOENT;
	bool free_now = false;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	struct thread *t = find_thread(p, tid);

	if (t) {
		err = t->detached || t->joining ? -EINVAL : 0;
	}
	if (!err) {
		free_now = make_unjoinable(p, t);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (free_now) {
		thread_free(t);
	}
	return err;
}

/* The live process pid, or NULL; table_lock held. */
static struct process *find_process(uint32_t pid)
{
	struct list *pos;

	list_for_each(pos, &table)
	{
		struct process *p = list_entry(pos, struct process, table_node);
		if (p->pid == pid) {
			return p;
		}
	}
	return NULL;
}

int process_kill_descendant(struct process *caller, uint32_t pid)
{
	uint64_t flags = spin_lock_irqsave(&table_lock);
	struct process *target = find_process(pid);
	int err = target ? -EPERM : -ENOENT;

	/* Up the parents: pids are never reused, and a tree is at most PROC_TREE_MAX deep. */
	for (struct process *q = target; q && q->ppid; q = find_process(q->ppid)) {
		if (q->ppid == caller->pid) {
			process_exit(target, EXIT_KILLED);
			err = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&table_lock, flags);
	return err;
}

void process_kill_tree(struct process *p, int64_t status)
{
	uint64_t flags = spin_lock_irqsave(&table_lock);

	kill_tree(p->tree_root, status);
	spin_unlock_irqrestore(&table_lock, flags);
}

struct process *process_largest_tree(bool kept)
{
	struct process *largest = NULL;
	uint64_t most = 0;
	struct list *pos;
	uint64_t flags = spin_lock_irqsave(&table_lock);

	/*
	 * Every live process, not only roots: a tree being killed keeps its
	 * memory until its last process is torn down, and stays the largest
	 * (killed again, to no effect) rather than making way for the next.
	 */
	list_for_each(pos, &table)
	{
		struct process *p = list_entry(pos, struct process, table_node);
		uint64_t used = __atomic_load_n(&p->acct->used, __ATOMIC_RELAXED);
		bool init = !p->tree_root->ppid;
		if (!init && (kept || !account_may_use_reserve(p->acct)) && used > most) {
			largest = p->tree_root;
			most = used;
		}
	}
	if (largest) {
		process_get(largest);
	}
	spin_unlock_irqrestore(&table_lock, flags);
	return largest;
}

uint32_t process_list_threads(struct thread_info *out, uint32_t max)
{
	uint32_t n = 0;
	struct list *ppos, *tpos;
	uint64_t flags = spin_lock_irqsave(&table_lock);

	list_for_each(ppos, &table)
	{
		struct process *p = list_entry(ppos, struct process, table_node);
		spin_lock(&p->lock);
		list_for_each(tpos, &p->threads)
		{
			struct thread *t = list_entry(tpos, struct thread, proc_node);
			uint32_t state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
			if (state == THREAD_EXITED || n == max) {
				continue;
			}
			struct thread_info *ti = &out[n++];
			memset(ti, 0, sizeof(*ti));
			ti->pid = p->pid;
			ti->tid = t->tid;
			ti->state = state;
			ti->cpu = __atomic_load_n(&t->cpu, __ATOMIC_RELAXED);
			ti->mem_pages = __atomic_load_n(&p->vm.rss_pages, __ATOMIC_RELAXED);
			ti->cpu_ns = t->cpu_ns;
			memcpy(ti->name, p->name, sizeof(ti->name));
			ti->ppid = p->ppid;
			ti->page_faults = __atomic_load_n(&p->page_faults, __ATOMIC_RELAXED);
			bool tracked = __atomic_load_n(&p->tracked, __ATOMIC_RELAXED);
			bool quiet = __atomic_load_n(&p->quiet, __ATOMIC_RELAXED);
			ti->flags =
			    (tracked ? THREAD_INFO_TRACKED : 0) | (quiet ? THREAD_INFO_QUIET : 0);
			ti->tree_pid = p->tree_root->pid;
			ti->tree_mem = __atomic_load_n(&p->acct->used, __ATOMIC_RELAXED);
			ti->tree_mem_limit = p->acct->limit;
		}
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&table_lock, flags);
	return n;
}

/*
 * Copies p's quiet flag to its threads, where the switch reads it with
 * one load (sched/switch.h); a thread added later copies it under the
 * same lock (process_add_thread()).
 */
static void set_threads_quiet(struct process *p, bool quiet)
{
	struct list *pos;

	spin_lock(&p->lock);
	list_for_each(pos, &p->threads)
	{
		struct thread *t = list_entry(pos, struct thread, proc_node);
		/* relaxed: a switch racing this may go either way; the next one follows it */
		__atomic_store_n(&t->trace_quiet, quiet, __ATOMIC_RELAXED);
	}
	spin_unlock(&p->lock);
}

int process_set_trace_flag(uint32_t pid, uint32_t flag, bool on)
{
	int err = -ENOENT;
	struct list *pos;
	uint64_t flags = spin_lock_irqsave(&table_lock);

	list_for_each(pos, &table)
	{
		struct process *p = list_entry(pos, struct process, table_node);
		if (p->pid == pid) {
			/* relaxed: tracepoints and switches read it alone, and may see either */
			__atomic_store_n(flag == PROC_QUIET ? &p->quiet : &p->tracked, on,
					 __ATOMIC_RELAXED);
			if (flag == PROC_QUIET) {
				set_threads_quiet(p, on);
			}
			err = 0;
		}
	}
	spin_unlock_irqrestore(&table_lock, flags);
	return err;
}

void process_untrack_all(void)
{
	struct list *pos;
	uint64_t flags = spin_lock_irqsave(&table_lock);

	list_for_each(pos, &table)
	{
		struct process *p = list_entry(pos, struct process, table_node);
		__atomic_store_n(&p->tracked, false, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&table_lock, flags);
}

uint32_t process_count(void)
{
	return __atomic_load_n(&nprocs, __ATOMIC_RELAXED);
}
