/*
 * thread: creating, ending and killing threads. A user thread's kernel
 * stack is prepared so that its first switch_context() "returns" into
 * thread_first_entry (switch.S), which enters user mode from the trap
 * frame at the top of the stack.
 */
#include "sched/thread.h"

#include "abi/errno.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/switch.h"
#include "lib/panic.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "trace/aux_names.h"
#include "trace/ktrace.h"

#define RFLAGS_RESERVED (1ul << 1)

extern char thread_first_entry[];

static uint32_t next_tid = 1; /* [a] */

/* A new thread record, charged to acct (NULL: the kernel's own). */
static struct thread *thread_alloc(struct mem_account *acct)
{
	struct thread *t = kzalloc_charged(acct, sizeof(*t));

	if (!t) {
		return NULL;
	}
	list_init(&t->run_node);
	list_init(&t->proc_node);
	list_init(&t->wait_node);
	list_init(&t->timer_node);
	waitq_init(&t->join_wait);
	t->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	t->trace_ids = (uint64_t)t->tid << 32;
	t->pin_cpu = -1;
	ipc_thread_init(t);
	return t;
}

int thread_create_user(struct process *p, uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rsi,
		       struct thread **out)
{
	struct thread *t = thread_alloc(p->acct);
	uint64_t stack_phys;

	if (!t) {
		return -ENOMEM;
	}
	if (pmm_alloc_charged(p->acct, KSTACK_SIZE / PAGE_SIZE, &stack_phys)) {
		kfree(t);
		return -ENOMEM;
	}
	t->kstack = phys_to_virt(stack_phys);
	struct trap_frame *f = (struct trap_frame *)(t->kstack + KSTACK_SIZE) - 1;
	memset(f, 0, sizeof(*f));
	f->rip = rip;
	f->cs = GDT_USER_CODE;
	f->rflags = RFLAGS_IF | RFLAGS_RESERVED;
	f->rsp = rsp;
	f->ss = GDT_USER_DATA;
	f->rdi = rdi;
	f->rsi = rsi;
	t->frame = f;

	uint64_t *sp = (uint64_t *)f;
	*--sp = (uintptr_t)thread_first_entry;
	for (int i = 0; i < SWITCH_SAVED_REGS; i++) {
		*--sp = 0;
	}
	t->kernel_rsp = (uintptr_t)sp;
	t->proc = p;
	t->trace_ids |= p->pid;
	t->state = THREAD_BLOCKED; /* not runnable until sched_start() */

	int err = process_add_thread(p, t);
	if (err) {
		thread_stack_free(t->kstack);
		kfree(t);
		return err;
	}
	/*
	 * Always, whatever the mask: a thread is named after its process, and
	 * `trace strings threads` maps tids to programs.
	 */
	if (TTRACE_ENABLED) {
		ttrace_aux_name(TTRACE_AUX_THREAD, t->tid, p->name);
	}
	*out = t;
	return 0;
}

void thread_init_idle(void)
{
	struct cpu *c = this_cpu();
	struct thread *t = thread_alloc(NULL);

	if (!t) {
		panic("sched: no memory for the idle thread of cpu %u", c->id);
	}
	t->kstack = c->kstack;
	t->state = THREAD_RUNNING;
	t->on_cpu = true;
	t->cpu = c->id;
	c->idle = t;
	c->current = t;
	c->trace_ids = t->trace_ids;
	c->kstack_top = (uintptr_t)(c->kstack + KSTACK_SIZE);
	list_init(&c->rq.ready);
}

void thread_exit(int64_t status)
{
	struct thread *t = thread_current();
	struct process *p = t->proc;

	ipc_thread_exit(t);
	if (process_thread_exited(p, t, status)) {
		process_teardown(p);
	}
	irq_disable();
	__atomic_store_n(&t->state, THREAD_EXITED, __ATOMIC_RELEASE);
	schedule();
	panic("thread %u ran after it exited", t->tid);
}

void thread_kill(struct thread *t)
{
	/* seq_cst: pairs with sched_block_check_kill(); one of us sees the other */
	__atomic_store_n(&t->killed, true, __ATOMIC_SEQ_CST);
	sched_wake(t, WAKE_KILL);
	sched_kick(t);
}

void thread_stack_free(uint8_t *kstack)
{
	pmm_free_frames(virt_to_phys(kstack), KSTACK_SIZE / PAGE_SIZE);
}

void thread_free(struct thread *t)
{
	/* acquire: pairs with the release of on_cpu in sched_finish_switch() */
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE)) {
		cpu_relax();
	}
	ipc_thread_free(t);
	kfree(t);
}
