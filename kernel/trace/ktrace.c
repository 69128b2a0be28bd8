/*
 * ktrace: the area, the emit path, the aux writer lock, control, the trace
 * capabilities' memory and the panic-time flight recorder.
 *
 * Lock order: control_mutex (each ttrace_control(), held across its
 * stops of the other CPUs), then control_lock (mask, mode, clear), a
 * leaf, as aux_lock (every aux write, from thread context only) is. The
 * emit path takes none.
 * The mask changes with every other CPU stopped (smp_stop_others()),
 * together with the tracepoints' static branches.
 */
#include "trace/ktrace.h"

#include "abi/errno.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/static_branch.h"
#include "arch/x86_64/timer.h"
#include "common/trace_aux.h"
#include "common/trace_format.h"
#include "common/trace_header.h"
#include "common/trace_names.h"
#include "common/trace_pred.h"
#include "common/trace_ring.h"
#include "init/options.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/pmm.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "sched/wait.h"
#include "trace/area_init.h"
#include "trace/aux_write.h"
#include "trace/ring_write.h"
#include "trace/echo.h"
#include "trace/filter.h"
#include "trace/name_holds.h"
#include "trace/profile.h"
#include "trace/recorder.h"
#include "trace/stack.h"
#include "trace/uevent_table.h"

#define FLIGHT_RECORDER_EVENTS 16
#define ENTRY_BYTES	       64
#define KIB		       1024
#define AREA_MIN_KB	       4 /* of ring per CPU, and of aux: the options' minimum */
/* The kinds that may carry a stack: every kind but none (0) and user (abi/trace.h, STACK). */
#define STACK_KINDS (((1ull << TTRACE_KIND_LIMIT) - 1) & ~(1ull << TTRACE_KIND_user) & ~1ull)

uint64_t ttrace_mask;
uint64_t ttrace_area_phys;

/*
 * [control_lock] What the tracepoints cannot do on their straight path
 * is wanted (tracepoint.h): PID tracking, the echo, call stacks, drop
 * mode; or its ts would not keep bit 63 clear (tsc_high). The sites of
 * enabled categories then jump to the slow path instead. Both change
 * with every other CPU stopped (change_sites()).
 */
static bool extras;
static bool tsc_high; /* [I] the TSC was past 2^62 at boot */

_Static_assert(TTRACE_KIND_LIMIT <= 64, "the header's stack_kinds: a bit a kind");

static struct ttrace_area area;	      /* [I] after ttrace_init() */
static struct memobj *area_obj;	      /* [I] */
static struct memobj *reader_obj;     /* [I] */
static struct ttrace_decoder decoder; /* the flight recorder's: one caller at a time */
static struct name_holds names;	      /* [aux_lock] the program names kept */
static struct spinlock aux_lock = SPINLOCK_INIT;
static struct spinlock control_lock = SPINLOCK_INIT;
/*
 * Serialises ttrace_control(): each change and the moves of the sites it
 * brings (change_sites()) run as one, so the sites always end as the last
 * change left extras.
 */
static struct mutex control_mutex = {.wq = WAITQ_INIT(control_mutex.wq)};

/* Lays out the header for ring_kb and aux_kb; returns the area's size, or 0. */
static uint64_t layout(struct ttrace_header *h, uint32_t num_cpus, uint64_t ring_kb,
		       uint64_t aux_kb)
{
	struct ttrace_geometry g = {
	    .num_cpus = num_cpus,
	    .ring_entries = (uint32_t)(ring_kb * KIB / ENTRY_BYTES),
	    .aux_durable_size = (ttrace_aux_names_size() + 7) & ~7ull,
	    .aux_ring_size = aux_kb * KIB,
	    .tsc_hz = timer_tsc_hz(),
	    .boot_tsc = timer_boot_tsc(),
	};

	return ttrace_header_init(h, &g) ? 0 : h->area_size;
}

/*
 * control_lock held, or every other CPU stopped: the mask for the sites
 * (tracepoint.h): the enabled categories, the extras' key while one is
 * on, and the keys of the kinds that have a filter.
 */
static uint64_t site_mask(void)
{
	return ttrace_mask | (extras ? TTRACE_KEY_EXTRAS : 0) | filter_keys();
}

/* An ENABLE or DISABLE of ttrace_control(), and the mask it leaves. */
struct mask_change {
	uint32_t op;
	uint64_t cats;
	uint64_t mask; /* out */
};

/*
 * Every other CPU stopped (smp_stop_others()): applies the change to the
 * mask, its header copy and the tracepoints at once, so no CPU runs a
 * tracepoint the mask disagrees with. The stores are relaxed: the mask
 * orders nothing (the ring protocol orders what a tracepoint writes, the
 * stopped CPUs' restart orders the code), and readers of the header's
 * copy only report it.
 */
static void change_mask(void *arg)
{
	struct mask_change *m = arg;
	uint64_t flags = spin_lock_irqsave(&control_lock);

	m->mask = m->op == TTRACE_OP_ENABLE ? ttrace_mask | m->cats : ttrace_mask & ~m->cats;
	__atomic_store_n(&area.hdr->mask, m->mask, __ATOMIC_RELAXED);
	__atomic_store_n(&ttrace_mask, m->mask, __ATOMIC_RELAXED);
	static_branches_set(site_mask());
	uevent_refresh();
	spin_unlock_irqrestore(&control_lock, flags);
}

/*
 * Every other CPU stopped (smp_stop_others()): points the sites of the
 * enabled categories at the slow path or the straight one, as extras says
 * now. A later change of extras brings its own call, so the last one to
 * run leaves the sites as the last change wants them.
 */
static void change_sites(void *unused)
{
	(void)unused;
	uint64_t flags = spin_lock_irqsave(&control_lock);

	static_branches_set(site_mask());
	spin_unlock_irqrestore(&control_lock, flags);
}

/* The categories of a command-line list (ttrace=, ttrace.echo=); 0, said why, if it is bad. */
static uint64_t boot_mask(const char *list, const char *what)
{
	const char *bad;
	size_t bad_len;
	uint64_t mask = 0;

	if (ttrace_category_parse(list, &mask, &bad, &bad_len)) {
		char known[128];
		ttrace_category_format(TTRACE_CAT_ALL, known, sizeof(known));
		printk("ttrace: unknown category '%.*s' (known: %s all); %s stays off\n",
		       (int)bad_len, bad, known, what);
		return 0;
	}
	return mask;
}

/*
 * control_lock held (or boot): recomputes extras from the header. Returns
 * true if it changed: the caller then moves the sites (change_sites()),
 * once it holds no lock. An extra coming on has had the sites moved
 * first (control()); one going off, or one whose operation failed, leaves
 * them on the slow path until they move back, which costs time, not
 * events.
 */
static bool update_extras(void)
{
	/* relaxed: the header's fields are changed under control_lock, or at boot */
	bool now = tsc_high || __atomic_load_n(&area.hdr->tracking, __ATOMIC_RELAXED) ||
		   __atomic_load_n(&area.hdr->echo, __ATOMIC_RELAXED) ||
		   __atomic_load_n(&area.hdr->stack_kinds, __ATOMIC_RELAXED) ||
		   __atomic_load_n(&area.hdr->mode, __ATOMIC_RELAXED) == TTRACE_MODE_DROP;
	bool changed = now != extras;

	extras = now;
	return changed;
}

/*
 * Allocates the area for the command line's sizes, or for the largest
 * halvings of them that fit: the area takes at most half the free memory
 * (what runs after boot needs the rest), down to AREA_MIN_KB of ring per
 * CPU and of aux. Halves the larger part first: all the rings together,
 * or the aux. Returns the area's size with *h laid out and *phys set, or 0
 * if even the smallest area does not fit. Says in one line what it cut.
 */
static uint64_t place(struct ttrace_header *h, uint32_t num_cpus, uint64_t *phys)
{
	uint64_t ring_kb = kopts.ttrace_ring_kb, aux_kb = kopts.ttrace_aux_kb; /* powers of two */
	uint64_t budget = pmm_free_count() * PAGE_SIZE / 2;
	uint64_t size = layout(h, num_cpus, ring_kb, aux_kb);

	while (!size || size > budget || pmm_alloc_frames(PAGE_ALIGN_UP(size) / PAGE_SIZE, phys)) {
		bool rings_larger = ring_kb * num_cpus >= aux_kb;

		if (ring_kb > AREA_MIN_KB && (rings_larger || aux_kb == AREA_MIN_KB)) {
			ring_kb /= 2;
		} else if (aux_kb > AREA_MIN_KB) {
			aux_kb /= 2;
		} else {
			return 0;
		}
		size = layout(h, num_cpus, ring_kb, aux_kb);
	}
	if (ring_kb != kopts.ttrace_ring_kb || aux_kb != kopts.ttrace_aux_kb) {
		printk("cmdline: ttrace.ring_kb=%lu ttrace.aux_kb=%lu take more than half the free "
		       "memory (%lu KiB): using ttrace.ring_kb=%lu ttrace.aux_kb=%lu\n",
		       kopts.ttrace_ring_kb, kopts.ttrace_aux_kb, budget * 2 / KIB, ring_kb,
		       aux_kb);
	}
	return size;
}

void ttrace_init(uint32_t num_cpus)
{
	struct ttrace_header h;
	uint64_t phys;

	if (!kopts.ttrace_ring_kb) {
		printk("ttrace: ttrace.ring_kb=0: no trace area; tracing is off\n");
		return;
	}
	uint64_t size = place(&h, num_cpus, &phys);
	if (!size) {
		printk(
		    "ttrace: not enough memory for the smallest trace area (%u KiB of ring per cpu "
		    "and of aux); tracing is off\n",
		    AREA_MIN_KB);
		return;
	}
	ttrace_area_place(&area, phys_to_virt(phys), &h);
	name_holds_init(&names, &area);
	if (ttrace_area_init(&area) || ttrace_aux_write_names(&area, rdtsc()) ||
	    memobj_wrap(phys, PAGE_ALIGN_UP(size) / PAGE_SIZE, &area_obj) ||
	    memobj_wrap(phys + h.reader_offset, h.reader_bytes / PAGE_SIZE, &reader_obj)) {
		printk("ttrace: cannot prepare the trace area; tracing is off\n");
		area = (struct ttrace_area){0}; /* ttrace_control() refuses without one */
		return;
	}
	ttrace_area_phys = phys;
	ttrace_cpu_online(this_cpu());
	/*
	 * The straight path keeps bit 63 of the TSC as it comes: at 5 GHz it
	 * takes 29 years from 2^62 to get there. A TSC set that high already
	 * leaves the tracepoints on the slow path, which masks it.
	 */
	tsc_high = rdtsc() >> 62;
	/* No cache of user-event definitions: the flight recorder prints them raw. */
	ttrace_decoder_init(&decoder, &area, NULL);
	echo_init(&area);
	/* relaxed: nothing emits before the mask is set below */
	__atomic_store_n(&area.hdr->echo, boot_mask(kopts.ttrace_echo, "echo"), __ATOMIC_RELAXED);
	(void)update_extras(); /* the sites are all off yet */
	/* Only this CPU runs yet: the change needs no other stopped, and cannot fail. */
	(void)smp_stop_others(change_mask,
			      &(struct mask_change){.op = TTRACE_OP_ENABLE,
						    .cats = boot_mask(kopts.ttrace, "tracing")});

	char names[128];
	ttrace_category_format(ttrace_mask, names, sizeof(names));
	printk("ttrace: %u cpus x %u entries, aux %lu KiB, mask %s\n", num_cpus, h.ring_entries,
	       h.aux_ring_size / KIB, names);
}

void ttrace_cpu_online(struct cpu *c)
{
	struct ttrace_ring ring;

	/* the context byte too: the CPU runs in the kernel's context (0) as it comes online */
	c->trace_word1 = (uint64_t)c->id << TTRACE_WORD1_CPU_SHIFT;
	if (!area.hdr || c->id >= area.hdr->num_cpus) {
		return; /* no area, or a CPU beyond those it was laid out for: emit() checks */
	}
	ttrace_ring_get(&ring, &area, c->id);
	struct ttrace_header *hdr = ring.hdr;
	ring.hdr = NULL;
	c->trace_ring = ring;
	ttrace_view_set(c, false); /* it runs the kernel's idle thread, never quiet */
	/* release: pairs with the acquire load in ring_of(): the other fields are seen first */
	__atomic_store_n(&c->trace_ring.hdr, hdr, __ATOMIC_RELEASE);
}

/*
 * The ring of the CPU whose id is i, or NULL when no CPU came online in
 * that slot (smp.c zeroes a slot whose CPU did not start, and the next
 * CPU to take it wires its own ring as it comes online).
 */
static struct ttrace_ring *ring_of(uint32_t i)
{
	/* acquire: pairs with the release store in ttrace_cpu_online() */
	return __atomic_load_n(&cpus[i].trace_ring.hdr, __ATOMIC_ACQUIRE) ? &cpus[i].trace_ring
									  : NULL;
}

/* Echoes ev, recorded on cpu, on the console (echo.c) as a reader would print it. */
static void echo(const struct ttrace_event *ev, uint32_t cpu)
{
	struct ttrace_record rec = {
	    .ts = ev->ts & TTRACE_TS_MASK,
	    .pid = ev->pid,
	    .tid = ev->tid,
	    .kind = ev->kind,
	    .cpu = (uint8_t)cpu,
	    .ctx = ev->ctx,
	};

	for (uint32_t i = 0; i < ev->nwords; i++) {
		rec.data[i] = ev->data[i];
	}
	echo_event(&rec);
}

void ttrace_tick(void)
{
	if (area.hdr) {
		echo_report(rdtsc());
	}
}

void ttrace_view_set(struct cpu *c, bool quiet)
{
	c->trace_quiet = quiet;
	if (quiet) {
		c->trace_head = &c->trace_quiet_head;
		c->trace_slots = &c->trace_quiet_slot;
		c->trace_index_mask = 0;
	} else {
		c->trace_head = c->trace_ring.state;
		c->trace_slots = c->trace_ring.slots;
		c->trace_index_mask = c->trace_ring.index_mask;
	}
}

/* After QUIET or UNQUIET: this CPU's view as its current thread's process now wants it. */
static void view_refresh(void)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();
	/* relaxed: as the switch reads it (sched/switch.h) */
	bool quiet = __atomic_load_n(&c->current->trace_quiet, __ATOMIC_RELAXED);

	if (quiet != c->trace_quiet) {
		ttrace_view_set(c, quiet);
	}
	irq_restore(flags);
}

/* Whether PID tracking leaves out events of thread t (abi/trace.h TTRACE_OP_TRACK). */
static bool untracked(const struct thread *t)
{
	/* relaxed: a tracepoint racing a change may go either way, as with the mask */
	return __atomic_load_n(&area.hdr->tracking, __ATOMIC_RELAXED) &&
	       !(t && t->proc && __atomic_load_n(&t->proc->tracked, __ATOMIC_RELAXED));
}

/*
 * Whether kind's filter keeps this event of c's, which it runs with
 * interrupts off (filter.h); a rejected event is counted in the ring's
 * filtered (abi/trace.h, ACCOUNTING) before it returns.
 */
static bool filtered_in(struct cpu *c, uint16_t kind, const uint64_t *data, bool user)
{
	const struct thread *t = c->current;
	uint32_t pid = (uint32_t)c->trace_ids;
	struct ttrace_pred_event ev = {
	    .data = data,
	    .pid = pid,
	    .tid = (uint32_t)(c->trace_ids >> 32),
	    .cpu = c->id,
	    .ctx = user ? TTRACE_CTX_USER : percpu_trace_ctx(),
	    /* the process the event names (pid 0: the kernel's, which has no comm) */
	    .comm = pid && t && t->proc ? t->proc->name : NULL,
	};
	uint64_t flags = irq_save();
	/* again, interrupts off: a filter removed since the caller looked runs no more */
	bool keep = !filter_on(kind) || filter_keeps(kind, &ev);

	if (!keep) {
		uint64_t *n = &c->trace_ring.state->filtered;
		/*
		 * relaxed: a counter only this CPU writes, interrupts off, so
		 * the load and the store are one step (as dropped in W1)
		 */
		__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
	}
	irq_restore(flags);
	return keep;
}

/*
 * Writes one event into this CPU's ring, checking everything: PID
 * tracking, the echo, the ring; with its call stack walked from stack
 * if that is not NULL. False if drop mode dropped it; an event PID
 * tracking leaves out is not dropped, only not wanted.
 */
static bool emit(uint16_t kind, const uint64_t *data, uint8_t nwords, bool user,
		 const struct stack_start *stack)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	uint64_t with_stack[TTRACE_EVENT_WORDS_MAX];

	if (!c->trace_ring.hdr || nwords > TTRACE_EVENT_WORDS_MAX) {
		return false; /* a CPU beyond those the area was laid out for; no such event */
	}
	if (c->trace_quiet || untracked(t)) {
		return true; /* left out, as the straight path's quiet view leaves it */
	}
	if (filter_on(kind) && !filtered_in(c, kind, data, user)) {
		return true; /* rejected, and counted: not dropped */
	}
	if (stack) {
		nwords = stack_event(with_stack, data, nwords, stack);
		data = with_stack;
	}
	/* the same pid, tid and context the straight path writes (percpu.h) */
	struct ttrace_event ev = {
	    .pid = (uint32_t)c->trace_ids,
	    .tid = (uint32_t)(c->trace_ids >> 32),
	    .kind = kind,
	    .ctx = user ? TTRACE_CTX_USER : percpu_trace_ctx(),
	    .nwords = nwords,
	    .data = data,
	};
	/*
	 * The timestamp is taken with the reservation, interrupts off, so a
	 * ring's timestamps rise with its indices: an interrupt's event cannot
	 * slip between them, and readers merging CPUs by time see each CPU in
	 * order. Filling the slots may be interrupted again (W2, W3).
	 */
	uint64_t index;
	uint64_t flags = irq_save();
	ev.ts = rdtsc();
	bool stored = ttrace_ring_reserve(&c->trace_ring, TTRACE_EVENT_SLOTS(nwords), &index);
	irq_restore(flags);
	if (stored) {
		ttrace_ring_commit(&c->trace_ring, index, &ev);
	}
	/* relaxed: an event racing a change of the echo may be echoed or not */
	uint64_t echoed = __atomic_load_n(&area.hdr->echo, __ATOMIC_RELAXED);
	if (echoed && ttrace_kind_info(kind) && echoed & ttrace_kind_info(kind)->category) {
		echo(&ev, c->id);
	}
	return stored;
}

void ttrace_emit_slow(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		      uint64_t d4)
{
	const uint64_t data[TTRACE_HEAD_WORDS] = {d0, d1, d2, d3, d4};
	uint16_t kind = (uint16_t)(kind_n >> TTRACE_SLOW_KIND_SHIFT);
	/* The tracepoint's site called this: the frame returns into the function that has it. */
	struct stack_start start = {.kernel_fp = (uintptr_t)__builtin_frame_address(0),
				    .user = stack_user_regs()};
	/* relaxed: an event racing TTRACE_OP_STACK may carry its stack or not */
	bool stacked = __atomic_load_n(&area.hdr->stack_kinds, __ATOMIC_RELAXED) >> (kind & 63) & 1;

	emit(kind, data, (uint8_t)kind_n, false, stacked ? &start : NULL);
}

bool ttrace_emit_user(const uint64_t *data, uint8_t nwords)
{
	return emit(TTRACE_KIND_user, data, nwords, true, NULL);
}

void ttrace_emit_stacked(uint16_t kind, const uint64_t *data, uint8_t nwords,
			 const struct stack_start *s)
{
	emit(kind, data, nwords, false, s);
}

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

/* Whether op with arg turns an extra on, if it passes its checks. */
static bool may_add_extra(uint32_t op, uint64_t arg)
{
	return op == TTRACE_OP_TRACK || (op == TTRACE_OP_MODE && arg == TTRACE_MODE_DROP) ||
	       ((op == TTRACE_OP_ECHO || op == TTRACE_OP_STACK || op == TTRACE_OP_STACK_ON) && arg);
}

/*
 * The checks of op's argument that need no other state: 0, or -EINVAL
 * (-ENOENT for a pid no process can have). Which process a TRACK names
 * is checked as it is tracked, under the process table's lock.
 */
static int check(uint32_t op, uint64_t arg)
{
	switch (op) {
	case TTRACE_OP_ENABLE:
	case TTRACE_OP_DISABLE:
	case TTRACE_OP_ECHO:
		return arg & ~TTRACE_CAT_ALL ? -EINVAL : 0;
	case TTRACE_OP_MODE:
		return arg != TTRACE_MODE_OVERWRITE && arg != TTRACE_MODE_DROP ? -EINVAL : 0;
	case TTRACE_OP_TRACK:
	case TTRACE_OP_UNTRACK:
	case TTRACE_OP_QUIET:
	case TTRACE_OP_UNQUIET:
		return arg > UINT32_MAX ? -ENOENT : 0;
	case TTRACE_OP_STACK:
	case TTRACE_OP_STACK_ON:
	case TTRACE_OP_STACK_OFF:
		return arg & ~STACK_KINDS ? -EINVAL : 0;
	case TTRACE_OP_CLEAR:
	case TTRACE_OP_UNTRACK_ALL:
	case TTRACE_OP_PROFILE:
		return 0; /* PROFILE's rate and CPUs: profile_set() checks them first */
	default:
		return -EINVAL;
	}
}

/*
 * PROFILE for control(): the profiler's rate and CPUs, and the samples'
 * category with them (on with the profiler, off without it). When the
 * category cannot change (a CPU did not stop), the profiler is put back
 * as the header says it was: nothing changed.
 */
static int profile(uint64_t arg)
{
	uint32_t hz = TTRACE_PROFILE_HZ(arg);
	/* relaxed: only control() changes them, under control_mutex */
	uint32_t was_hz = __atomic_load_n(&area.hdr->profile_hz, __ATOMIC_RELAXED);
	uint32_t was_cpus = __atomic_load_n(&area.hdr->profile_cpus, __ATOMIC_RELAXED);
	struct mask_change m = {.op = hz ? TTRACE_OP_ENABLE : TTRACE_OP_DISABLE,
				.cats = TTRACE_CAT(PROF)};
	int err = profile_set(hz, TTRACE_PROFILE_CPUS(arg));

	if (err) {
		return err;
	}
	err = smp_stop_others(change_mask, &m);
	if (err) {
		(void)profile_set(was_hz, was_cpus); /* valid: it was set so */
		return err;
	}
	/* relaxed: for readers to report, as the mask */
	__atomic_store_n(&area.hdr->profile_hz, hz, __ATOMIC_RELAXED);
	__atomic_store_n(&area.hdr->profile_cpus, hz ? TTRACE_PROFILE_CPUS(arg) : 0,
			 __ATOMIC_RELAXED);
	return (int)m.mask;
}

/*
 * ttrace_control(), control_mutex held. Checks op's argument, then
 * changes. An op that turns an extra on moves the sites to the slow path
 * first, so no straight path runs past its effect (overwriting in drop
 * mode, recording an untracked pid): one that a CPU was on its way
 * through when the move stopped it, its slot not yet reserved, starts
 * again from its site (tracepoint.h). If the op then fails after all (a
 * TRACK of a pid no live process has), update_extras() finds the extras
 * as they were and the sites move back. A change of the sites that cannot
 * stop every CPU (smp_stop_others()'s -ECPUSTUCK) changes nothing and
 * returns that error; one moving them back to the straight path after
 * the op is done leaves them on the slow path, which is right, only
 * slower, and extras says so, for the next op to move them.
 */
static int control(uint32_t op, uint64_t arg)
{
	int err = check(op, arg);

	if (err) {
		return err;
	}
	if (may_add_extra(op, arg)) {
		uint64_t flags = spin_lock_irqsave(&control_lock);
		bool move = !extras;

		extras = true;
		spin_unlock_irqrestore(&control_lock, flags);
		err = move ? smp_stop_others(change_sites, NULL) : 0;
		if (err) {
			flags = spin_lock_irqsave(&control_lock);
			extras = false; /* the sites did not move: the straight path still runs */
			spin_unlock_irqrestore(&control_lock, flags);
			return err;
		}
	}
	if (op == TTRACE_OP_PROFILE) {
		return profile(arg);
	}
	if (op == TTRACE_OP_ENABLE || op == TTRACE_OP_DISABLE) {
		struct mask_change m = {.op = op, .cats = arg};

		err = smp_stop_others(change_mask, &m);
		return err ? err : (int)m.mask;
	}
	uint64_t flags = spin_lock_irqsave(&control_lock);
	switch (op) {
	case TTRACE_OP_MODE:
		/*
		 * relaxed: the mode orders nothing either. A write racing
		 * the change may use either mode, and both count exactly
		 * (the writer's load in ttrace_ring_reserve() is relaxed).
		 */
		__atomic_store_n(&area.hdr->mode, (uint32_t)arg, __ATOMIC_RELAXED);
		break;
	case TTRACE_OP_CLEAR:
		for (uint32_t i = 0; i < area.hdr->num_cpus; i++) {
			if (ring_of(i)) {
				ttrace_ring_clear(ring_of(i));
			}
		}
		break;
	case TTRACE_OP_TRACK:
		err = process_set_trace_flag((uint32_t)arg, PROC_TRACKED, true);
		if (!err) {
			/* relaxed: orders nothing, as the mask (change_mask()) */
			__atomic_store_n(&area.hdr->tracking, 1, __ATOMIC_RELAXED);
		}
		break;
	case TTRACE_OP_UNTRACK:
		err = process_set_trace_flag((uint32_t)arg, PROC_TRACKED, false);
		break;
	case TTRACE_OP_QUIET:
	case TTRACE_OP_UNQUIET:
		err = process_set_trace_flag((uint32_t)arg, PROC_QUIET, op == TTRACE_OP_QUIET);
		break;
	case TTRACE_OP_UNTRACK_ALL:
		__atomic_store_n(&area.hdr->tracking, 0, __ATOMIC_RELAXED);
		process_untrack_all();
		break;
	case TTRACE_OP_STACK:
	case TTRACE_OP_STACK_ON:
	case TTRACE_OP_STACK_OFF: {
		/*
		 * relaxed: orders nothing, as the mask (change_mask()). Only
		 * this path changes it, under control_lock, so the load and
		 * the store together are one change: STACK_ON and STACK_OFF
		 * from two controllers never lose each other's kinds.
		 */
		uint64_t kinds = __atomic_load_n(&area.hdr->stack_kinds, __ATOMIC_RELAXED);

		kinds = op == TTRACE_OP_STACK_ON    ? kinds | arg
			: op == TTRACE_OP_STACK_OFF ? kinds & ~arg
						    : arg;
		__atomic_store_n(&area.hdr->stack_kinds, kinds, __ATOMIC_RELAXED);
		break;
	}
	case TTRACE_OP_ECHO:
		/* relaxed: orders nothing, as the mask (change_mask()) */
		__atomic_store_n(&area.hdr->echo, arg, __ATOMIC_RELAXED);
		break;
	}
	/* whatever op did or failed to do: the sites follow the extras now in force */
	bool move_sites = update_extras();
	uint64_t mask = ttrace_mask;
	spin_unlock_irqrestore(&control_lock, flags);
	if (!err && (op == TTRACE_OP_QUIET || op == TTRACE_OP_UNQUIET)) {
		view_refresh(); /* the caller may have named itself */
	}
	if (move_sites && smp_stop_others(change_sites, NULL)) {
		flags = spin_lock_irqsave(&control_lock);
		extras = true; /* the sites stayed on the slow path */
		spin_unlock_irqrestore(&control_lock, flags);
	}
	return err ? err : (int)mask;
}

/* A filter for ttrace_filter(): kind's n instructions at insn (none for n = 0). */
struct filter_change {
	uint16_t kind;
	uint32_t n;
	const struct ttrace_pred_insn *insn;
};

/*
 * Every other CPU stopped: installs the filter and moves the sites. One
 * coming on moves every enabled site to the slow path first, as an extra
 * does (control()): a CPU this stop caught on its way through a straight
 * path of the kind, its slot not reserved, starts again from its site,
 * which now runs the filter. The caller then moves the other kinds' sites
 * back (update_extras()).
 */
static void change_filter(void *arg)
{
	struct filter_change *f = arg;
	uint64_t flags = spin_lock_irqsave(&control_lock);

	filter_install(f->kind, f->insn, f->n);
	/* relaxed: for readers to report, as the mask */
	__atomic_store_n(&area.hdr->filter_kinds, filter_kinds(), __ATOMIC_RELAXED);
	extras |= f->n != 0;
	static_branches_set(site_mask());
	spin_unlock_irqrestore(&control_lock, flags);
}

int ttrace_filter(uint16_t kind, const struct ttrace_pred_insn *insn, uint32_t n)
{
	struct filter_change f = {.kind = kind, .n = n, .insn = insn};

	if (!area.hdr) {
		return -ENOMEM;
	}
	if (n ? ttrace_pred_verify(kind, insn, n) : !ttrace_kind_info(kind)) {
		return -EINVAL;
	}
	mutex_lock(&control_mutex);
	int err = smp_stop_others(change_filter, &f);
	if (!err) {
		uint64_t flags = spin_lock_irqsave(&control_lock);
		bool move_sites = update_extras();
		spin_unlock_irqrestore(&control_lock, flags);
		if (move_sites && smp_stop_others(change_sites, NULL)) {
			flags = spin_lock_irqsave(&control_lock);
			extras = true; /* the sites stayed on the slow path: right, only slower */
			spin_unlock_irqrestore(&control_lock, flags);
		}
	}
	mutex_unlock(&control_mutex);
	return err;
}

int ttrace_control(uint32_t op, uint64_t arg)
{
	if (!area.hdr) {
		return -ENOMEM;
	}
	mutex_lock(&control_mutex);
	int ret = control(op, arg);
	mutex_unlock(&control_mutex);
	return ret;
}

uint64_t ttrace_ring_entries(void)
{
	return area.hdr ? area.hdr->ring_entries : 0;
}

struct memobj *ttrace_area_object(void)
{
	return area_obj;
}

struct memobj *ttrace_reader_object(void)
{
	return reader_obj;
}

void ttrace_panic_dump(uint32_t cpu)
{
	if (!area.hdr) {
		return;
	}
	printk("trace counters:\n");
	for (uint32_t i = 0; i < area.hdr->num_cpus; i++) {
		struct ttrace_counts n;
		if (!ring_of(i)) {
			continue; /* no CPU came online there: it has written nothing */
		}
		if (ttrace_ring_counts(ring_of(i), &n)) {
			/* a clear stopped halfway: its counters cannot be read whole */
			printk("  cpu %u: counters busy (a clear was in progress)\n", i);
			continue;
		}
		printk("  cpu %u: emitted=%lu stored=%lu overwritten=%lu dropped=%lu cleared=%lu",
		       i, n.emitted, n.stored, n.overwritten, n.dropped, n.cleared);
		/* only when there are any: the line stays as it was without filters */
		printk(n.filtered ? " filtered=%lu\n" : "\n", n.filtered);
	}
	ttrace_flight_recorder(cpu);
}

size_t ttrace_flight_recorder(uint32_t cpu)
{
	static struct ttrace_record records[FLIGHT_RECORDER_EVENTS * 4];
	static char line[256];
	uint64_t skipped;

	if (!area.hdr || cpu >= area.hdr->num_cpus || !ring_of(cpu)) {
		return 0;
	}
	size_t n = recorder_read(ring_of(cpu), FLIGHT_RECORDER_EVENTS * 4, records,
				 FLIGHT_RECORDER_EVENTS * 4, &skipped);
	size_t first = n > FLIGHT_RECORDER_EVENTS ? n - FLIGHT_RECORDER_EVENTS : 0;
	printk("flight recorder: last %lu events on cpu %u", n - first, cpu);
	if (skipped) {
		printk(" (%lu slots being written, skipped)", skipped);
	}
	printk("\n");
	for (size_t i = first; i < n; i++) {
		ttrace_format_event(line, sizeof(line), &records[i], &decoder);
		printk("  %s\n", line);
	}
	return n - first;
}
