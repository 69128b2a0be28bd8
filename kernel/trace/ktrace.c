/*
 * ktrace: the area's setup at boot, control, and the trace capabilities'
 * memory. The slow path is emit.c's, the names written into the aux ring
 * aux_names.c's, the flight recorder flight.c's, the area itself area.c's.
 *
 * Lock order: control_mutex (each ttrace_control(), held across its
 * stops of the other CPUs), then control_lock (mask, mode, clear), a
 * leaf, as aux_lock (aux_names.c) is. The emit path takes none.
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
#include "common/trace_format.h"
#include "common/trace_header.h"
#include "common/trace_names.h"
#include "common/trace_pred.h"
#include "common/trace_ring.h"
#include "init/options.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/pmm.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "sched/wait.h"
#include "trace/area.h"
#include "trace/area_init.h"
#include "trace/aux_names.h"
#include "trace/aux_write.h"
#include "trace/echo.h"
#include "trace/filter.h"
#include "trace/flight.h"
#include "trace/name_holds.h"
#include "trace/pred_record.h"
#include "trace/pred_run.h"
#include "trace/profile.h"
#include "trace/ring_write.h"
#include "trace/tracepoint.h"
#include "trace/trigger.h"
#include "trace/uevent_table.h"

#define ENTRY_BYTES 64
#define KIB	    1024
#define AREA_MIN_KB 4 /* of ring per CPU, and of aux: the options' minimum */
/* The kinds that may carry a stack: every kind but none (0) and user (abi/trace.h, STACK). */
#define STACK_KINDS (((1ull << TTRACE_KIND_LIMIT) - 1) & ~(1ull << TTRACE_KIND_user) & ~1ull)

uint64_t ttrace_mask;
uint64_t ttrace_area_phys;

/*
 * [control_lock] What the tracepoints cannot do on their straight path
 * is wanted (tracepoint.h): PID tracking, the echo, call stacks, drop
 * mode, a STOP trigger (whose stop only the slow path checks); or its
 * ts would not keep bit 63 clear (tsc_high). The sites of enabled
 * categories then jump to the slow path instead. Both change with every
 * other CPU stopped (change_sites()).
 */
static bool extras;
static bool tsc_high; /* [I] the TSC was past 2^62 at boot */

_Static_assert(TTRACE_KIND_LIMIT <= 64, "the header's stack_kinds: a bit a kind");

static struct memobj *area_obj;	  /* [I] */
static struct memobj *reader_obj; /* [I] */
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
 * on, and the keys of the kinds that have a filter or a trigger.
 */
static uint64_t site_mask(void)
{
	uint64_t keys = 0, kinds = filter_kinds() | trigger_kinds();

	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		keys |= kinds >> k & 1 ? TTRACE_KEY_FILTER(k) : 0;
	}
	return ttrace_mask | (extras ? TTRACE_KEY_EXTRAS : 0) | keys;
}

/*
 * Every other CPU stopped, control_lock held: points the sites as
 * site_mask() says, and tells ttrace_emit_slow() whether the extras' key
 * is on with them (tracepoint.h).
 */
static void sites_set(void)
{
	static_branches_set(site_mask());
	ttrace_sites_slow = extras;
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
	sites_set();
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

	sites_set();
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
		   __atomic_load_n(&area.hdr->mode, __ATOMIC_RELAXED) == TTRACE_MODE_DROP ||
		   trigger_stop_set();
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

/* A change for ttrace_filter() or ttrace_trigger(): kind's filter, or its trigger. */
struct pred_change {
	uint16_t kind;
	const struct ttrace_pred_jumps *jumps; /* the program lowered; NULL: the filter's removal */
	const struct ttrace_trigger *trigger;  /* instead of a filter, when not NULL */
};

/* [control_mutex] The program of a change, lowered before the stop that installs it. */
static struct ttrace_pred_jumps lowered;

/*
 * Every other CPU stopped: installs the filter or the trigger and moves
 * the sites. One coming on moves every enabled site to the slow path
 * first, as an extra does (control()): a CPU this stop caught on its way
 * through a straight path of the kind, its slot not reserved, or between
 * the filtered path's check and that path, starts again from its site,
 * which now runs the filter or the trigger; one caught in the filtered
 * path's code goes back to its start (pred_run.h), to the code compiled
 * here. The caller then moves the other kinds' sites back
 * (update_extras()).
 */
static void change_pred(void *arg)
{
	struct pred_change *f = arg;
	uint64_t flags = spin_lock_irqsave(&control_lock);

	if (f->trigger) {
		trigger_install(f->kind, f->trigger, f->jumps);
		extras |= f->trigger->action != TTRACE_TRIG_NONE;
	} else {
		filter_install(f->kind, f->jumps);
		/* relaxed: for readers to report, as the mask */
		__atomic_store_n(&area.hdr->filter_kinds, filter_kinds(), __ATOMIC_RELAXED);
		extras |= f->jumps != NULL;
	}
	pred_run_install(f->kind);
	sites_set();
	spin_unlock_irqrestore(&control_lock, flags);
}

/* control_mutex held: makes change f with every other CPU stopped, then moves the sites. */
static int change_pred_stopped(struct pred_change *f)
{
	int err = smp_stop_others(change_pred, f);

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
	return err;
}

int ttrace_filter(uint16_t kind, const struct ttrace_pred_insn *insn, uint32_t n)
{
	struct pred_change f = {.kind = kind, .jumps = n ? &lowered : NULL};

	if (!area.hdr) {
		return -ENOMEM;
	}
	if (n ? ttrace_pred_verify(kind, insn, n) : !ttrace_kind_info(kind)) {
		return -EINVAL;
	}
	mutex_lock(&control_mutex);
	if (n) {
		pred_record_lower(insn, n, &lowered);
	}
	int err = change_pred_stopped(&f);
	mutex_unlock(&control_mutex);
	return err;
}

/* The checks of a SET's trigger t for kind (abi/trace_pred.h, TRIGGERS): 0 or -EINVAL. */
static int trigger_check(uint16_t kind, const struct ttrace_trigger *t)
{
	if (!ttrace_kind_info(kind) || t->fired || t->first_ns || t->reserved ||
	    t->action >= TTRACE_TRIG_ACTION_LIMIT) {
		return -EINVAL;
	}
	if (t->action == TTRACE_TRIG_NONE) {
		return t->n ? -EINVAL : 0;
	}
	if (t->action == TTRACE_TRIG_STACK && !(STACK_KINDS >> kind & 1)) {
		return -EINVAL; /* the user kind: its events carry no stack */
	}
	return ttrace_pred_verify(kind, t->insn, t->n);
}

int ttrace_trigger(uint32_t op, uint16_t kind, struct ttrace_trigger *t)
{
	struct pred_change f = {.kind = kind, .jumps = &lowered, .trigger = t};
	int err = 0;

	if (!area.hdr) {
		return -ENOMEM;
	}
	if (op == TTRACE_TRIG_GET ? !ttrace_kind_info(kind)
				  : op != TTRACE_TRIG_SET || trigger_check(kind, t)) {
		return -EINVAL;
	}
	mutex_lock(&control_mutex);
	if (op == TTRACE_TRIG_GET) {
		trigger_get(kind, t);
	} else {
		if (t->action != TTRACE_TRIG_NONE) {
			pred_record_lower(t->insn, t->n, &lowered);
		}
		err = change_pred_stopped(&f);
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
