/*
 * percpu: the per-CPU block, reached through the GS base.
 *
 * Every CPU has one struct cpu, set up before it takes its first interrupt.
 * Its first field points to itself so that this_cpu() is a single load
 * from %gs:0. Lock legend: [I] immutable after the CPU is online, [a]
 * accessed atomically, [o] touched only by the owning CPU.
 */
#ifndef SPOOR_ARCH_PERCPU_H
#define SPOOR_ARCH_PERCPU_H

/* Offsets the syscall entry (syscall_entry.S) uses; asserted below. */
#define PERCPU_KSTACK_TOP 8
#define PERCPU_USER_RSP	  16

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/gdt.h"
#include "common/trace_ring.h"
#include "lib/list.h"
#include "lib/spinlock.h"

#define MAX_CPUS       8
#define KSTACK_SIZE    16384
#define IST_STACK_SIZE 8192

struct thread;

/* A CPU's queue of ready threads. */
struct runqueue {
	struct spinlock lock; /* taken with interrupts off; see sched.c for the order */
	struct list ready;    /* [lock] threads in THREAD_READY, oldest first */
	uint32_t nready;      /* [lock] length of ready; read racily to balance */
};

struct cpu {
	struct cpu *self;    /* [I] must stay first: this_cpu() reads %gs:0 */
	uint64_t kstack_top; /* [o] the current thread's kernel stack top */
	uint64_t user_rsp;   /* [o] scratch for syscall entry */
	uint32_t id;	     /* [I] dense index, 0 is the boot CPU */
	uint32_t apic_id;    /* [I] from the MADT */
	uint64_t ticks;	     /* [a] timer interrupts taken */
	bool online;	     /* [a] set by the CPU itself once it is ticking */

	/* Cross-CPU calls (smp_call): the caller fills, the target runs. */
	void (*call_fn)(void *arg); /* [a] */
	void *call_arg;		    /* [a] */
	uint32_t call_pending;	    /* [a] 1 from request until done */

	/* Scheduling (kernel/sched). */
	struct runqueue rq;
	struct thread *current;	      /* [o] the thread running here */
	struct thread *idle;	      /* [I] runs when nothing else can */
	struct thread *switched_from; /* [o] handed from schedule() to sched_finish_switch() */
	bool need_resched;	      /* [a] schedule() before returning to user mode */
	uint64_t idle_ns;	      /* [o] time spent in the idle thread */

	/* Lockup detection (kernel/sched/watchdog.h). */
	bool progressed; /* [a] scheduled or bound for user mode since its last tick */
	const struct spinlock *spinning_on; /* [a] the lock spin_lock() waits for; NULL: none */

	/* Memory (paging.c): the user space whose tables are loaded here, 0 for none. */
	uint64_t user_pml4; /* [a] published before the CR3 write that loads them */

	/* Tracing (kernel/trace). */
	struct ttrace_ring trace_ring; /* [I] this CPU's ring, once tracing is set up */
	uint32_t irq_depth;	       /* [o] interrupt handlers running: their events are irq */
	uint64_t trace_word1;	       /* [I] id << 48: this CPU in word 1 of its ring's entries */
	uint32_t usercopy_nofault; /* [o] > 0: a user copy's fault fails at once (stack walks) */
	uint32_t profile_hz;	   /* [a] the profiler's rate asked for here, 0: off (profile.c) */
	uint32_t profile_rate;	   /* [o] the rate the timer runs at for it, 0: off */
	uint32_t profile_phase;	   /* [o] the scheduler tick's share, as profile.c counts it */

	struct gdt gdt; /* [o] */
	struct tss tss; /* [o] */
	uint8_t ist_double_fault[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t ist_nmi[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t ist_machine_check[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t kstack[KSTACK_SIZE] __attribute__((aligned(16))); /* boot/idle stack */
};

_Static_assert(__builtin_offsetof(struct cpu, self) == 0, "this_cpu() reads %gs:0");
_Static_assert(__builtin_offsetof(struct cpu, kstack_top) == PERCPU_KSTACK_TOP, "syscall_entry.S");
_Static_assert(__builtin_offsetof(struct cpu, user_rsp) == PERCPU_USER_RSP, "syscall_entry.S");

extern struct cpu cpus[MAX_CPUS];
extern uint32_t ncpus; /* [I] CPUs started, set before the APs run */

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

/*
 * Run by each CPU on itself, first thing: loads its GDT and TSS and points
 * GS at c. The caller has filled c->id and c->apic_id.
 */
void percpu_init(struct cpu *c);

/* this_cpu()->id, or 0 while the boot CPU has not run percpu_init(). */
uint32_t percpu_current_id(void);
#endif

#endif
