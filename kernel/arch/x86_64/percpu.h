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

#include "abi/proc.h"
#include "arch/x86_64/cpu_id.h"
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

	/*
	 * Tracing (kernel/trace). The tracepoints' straight path
	 * (trace/tracepoint.h) reads these through %gs, one instruction
	 * each: the ring, and what the events written here now carry.
	 */
	struct ttrace_ring trace_ring; /* [I] this CPU's ring, once tracing is set up */
	/*
	 * [o] Where the straight path writes: trace_ring's head, slots and
	 * mask, or while a quiet process runs here (abi/trace.h
	 * TTRACE_OP_QUIET) trace_quiet_head and trace_quiet_slot, which no
	 * reader sees. ttrace_view_set() changes them with interrupts off;
	 * no tracepoint runs in an NMI, so none sees them half changed.
	 */
	struct ttrace_cpu *trace_head;
	union ttrace_slot *trace_slots;
	uint64_t trace_index_mask;
	bool trace_quiet; /* [o] the view is the quiet one */
	/* [o] cpu << 48 | ctx << 56: word 1 of the events written here, but seq and kind */
	uint64_t trace_word1;
	uint64_t trace_ids;	   /* [o] pid | tid << 32 of the current thread (sched/switch.h) */
	uint32_t usercopy_nofault; /* [o] > 0: a user copy's fault fails at once (stack walks) */
	uint32_t profile_hz;	   /* [a] the profiler's rate asked for here, 0: off (profile.c) */
	uint32_t profile_rate;	   /* [o] the rate the timer runs at (profile.c), 0: not set yet */
	uint32_t profile_phase;	   /* [o] the scheduler tick's share, as profile.c counts it */
	struct ttrace_cpu trace_quiet_head; /* [o] the quiet view's head: counts nothing */
	union ttrace_slot trace_quiet_slot; /* [o] the quiet view's one slot: read by nobody */
	/*
	 * [o] The words of the event a filter or trigger runs on, and the
	 * name of its process when a program reads it: with the fields
	 * above, the record trace/pred_record.h lays out. Interrupts off.
	 */
	uint64_t trace_pred_words[TTRACE_HEAD_WORDS];
	char trace_pred_comm[PROC_NAME_MAX];

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
_Static_assert(__builtin_offsetof(struct cpu, id) == PERCPU_ID, "cpu_id_self()");

extern struct cpu cpus[MAX_CPUS];
/* [I] CPUs started: counted as they start, final once smp_start_aps() returns */
extern uint32_t ncpus;

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

/* Where trace_word1 keeps the context (TTRACE_CTX_*): its top byte, little-endian. */
#define PERCPU_TRACE_CTX_BYTE 7

/*
 * The context the events of the CPU running this now carry: one byte load
 * through %gs. Volatile: it stays in order with percpu_set_trace_ctx().
 */
static inline uint8_t percpu_trace_ctx(void)
{
	uint8_t ctx;

	__asm__ volatile(
	    "movb %%gs:%c1, %0"
	    : "=q"(ctx)
	    : "i"(__builtin_offsetof(struct cpu, trace_word1) + PERCPU_TRACE_CTX_BYTE));
	return ctx;
}

/*
 * Sets the context the events of the CPU running this carry from now on:
 * one byte store through %gs, which an interrupt cannot split. A handler
 * that changes it puts it back before it returns, so the code it
 * interrupted never sees the change.
 */
static inline void percpu_set_trace_ctx(uint8_t ctx)
{
	/* "memory": C code reads the word too (this_cpu()->trace_word1) */
	__asm__ volatile("movb %0, %%gs:%c1"
			 :
			 : "iq"(ctx),
			   "i"(__builtin_offsetof(struct cpu, trace_word1) + PERCPU_TRACE_CTX_BYTE)
			 : "memory");
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
