/*
 * watchdog: lockup detection and its report (watchdog.h).
 */
#include "sched/watchdog.h"

#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "init/options.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "proc/process.h"
#include "sched/thread.h"
#include "trace/flight.h"
#include "trace/func.h"
#include "trace/ktrace.h"

#define WATCHDOG_NMI_WAIT_MS 100
/*
 * A CPU that takes no tick is called stuck with interrupts masked only
 * after this many answers to the detector's NMI, a tick's period apart,
 * each with interrupts masked and no tick taken since it was suspected.
 */
#define WATCHDOG_MASKED_ANSWERS 3

/* A CPU's state as its NMI answer (or the reporter's own tick) left it. */
struct snapshot {
	uint64_t rip, rbp, rflags, cs;
	struct thread *thread;
	const struct spinlock *spinning_on;
	uint32_t holder; /* spinning_on's owner as it was seen: a CPU's id + 1, 0 for none */
};

/*
 * An ask's states. PENDING goes to exactly one of TAKING (the CPU's NMI
 * claimed it in time, and goes on to ANSWERED once its snapshot is
 * written) or NONE (the reporter stopped waiting: the NMI, when it comes,
 * is late), each by a compare-and-swap, so an NMI is either answered or
 * counted late, never both nor neither.
 */
enum { ASK_NONE, ASK_PENDING, ASK_TAKING, ASK_ANSWERED };

/* What a CPU's tick saw of another CPU's ticks (sight()). */
struct sighting {
	uint64_t ticks; /* [a] the other's count when it last changed */
	uint64_t at;	/* [a] this CPU's own count then */
};

/*
 * Silence is measured in the time a CPU actually ran. Under TCG each
 * vCPU is a host thread and the TSC follows the host's clock, so a CPU
 * the host does not run for a while looks, by the TSC, as silent as a
 * hung one. Two kinds of silence are told apart:
 *
 * - A CPU with interrupts on takes its ticks whenever it runs: its own
 *   ticks count its silence (silent_ticks, one tick a 1/TIMER_HZ s of
 *   the time it ran), whatever the host did meanwhile.
 * - A CPU with interrupts masked takes no tick: it is suspected when
 *   another CPU, the looker, took the limit's worth of ticks since it saw
 *   the suspect's last (struct sighting), in the time the looker ran. Not
 *   by the TSC: when the host stops QEMU, the TSC runs on and no CPU runs,
 *   and a CPU masked for a moment after such a stall (in a lock convoy,
 *   say) would look silent for the whole stall. A suspect is called stuck
 *   only when it answers the NMI WATCHDOG_MASKED_ANSWERS times, a tick's
 *   period apart,
 *   with interrupts masked and still no tick taken. A CPU the host merely
 *   did not run answers once it runs again, with its tick pending: it
 *   takes the tick as soon as it unmasks, which a CPU that runs does
 *   within a tick's period.
 *
 * A CPU holds one NMI pending at most, and one may come after the report
 * stopped waiting for it (a CPU slow to take it, as under a loaded host).
 * So the reporter sends a CPU no NMI while one it sent is not taken yet,
 * and the CPU's handler knows an NMI is the detector's, late or not, by
 * nmi_taken != nmi_sent: a late one is counted and ignored, never taken
 * for a stray NMI (which panics).
 */
struct watch {
	uint64_t ticks;	       /* [a] the CPU's own tick: how many it took */
	uint32_t silent_ticks; /* [a] the CPU's own tick: of them, those since it saw progress */
	bool armed;	       /* [a] the CPU took a tick: it is watched */
	bool reported; /* [a] this stall was reported: set by the reporter, cleared by progress */
	uint32_t reporter;    /* [a] the CPU that reported it, whose ticks count its silence */
	uint32_t ask;	      /* [a] ASK_*: the reporter asks, the CPU's NMI answers */
	uint32_t nmi_sent;    /* [a] the detector's NMIs sent to the CPU; [reporting] changes it */
	uint32_t nmi_taken;   /* [a] of them, those its NMI handler took; only the CPU changes it */
	uint32_t nmi_late;    /* [a] of them, those taken after the report stopped waiting */
	struct snapshot snap; /* written by the CPU's NMI before ask turns ASK_ANSWERED */
	struct sighting seen[MAX_CPUS]; /* the CPU's own tick writes them: the others' ticks */
};

/* What the reporter saw of a suspected CPU when it suspected it. */
struct suspect {
	uint64_t ticks;	       /* its tick count */
	uint32_t silent_ticks; /* its ticks without progress */
	uint64_t unticked;     /* the reporter's ticks since its last tick */
	bool masked; /* unticked past the limit looked for: interrupts masked, or not run */
};

static struct watch watches[MAX_CPUS];
static uint32_t reporting;		  /* [a] 1 while a CPU reports: one report at a time */
static struct snapshot snaps[MAX_CPUS];	  /* [reporting] the CPUs' states, for the report */
static struct suspect suspects[MAX_CPUS]; /* [reporting] */

/* Fills *s with the state of c, which runs this, interrupted at f. */
static void take_snapshot(struct snapshot *s, const struct trap_frame *f, const struct cpu *c)
{
	const struct spinlock *l = __atomic_load_n(&c->spinning_on, __ATOMIC_RELAXED);

	*s = (struct snapshot){
	    .rip = f->rip,
	    .rbp = f->rbp,
	    .rflags = f->rflags,
	    .cs = f->cs,
	    .thread = c->current,
	    .spinning_on = l,
	    /* relaxed: the owner may change meanwhile; the report names the one seen */
	    .holder = l ? __atomic_load_n(&l->owner, __ATOMIC_RELAXED) : 0,
	};
}

notrace bool watchdog_nmi(const struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	struct watch *w = &watches[c->id];
	/* acquire: pairs with the release increment in ask_others(): the ask before it is seen */
	uint32_t sent = __atomic_load_n(&w->nmi_sent, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&w->nmi_taken, __ATOMIC_RELAXED) == sent) {
		return false; /* none of the detector's is on its way: not its NMI */
	}
	/* release: pairs with the acquire load in ask_others(), which may send the next */
	__atomic_store_n(&w->nmi_taken, sent, __ATOMIC_RELEASE);
	if (kopts.inject == INJECT_LATENMI && c->id == ncpus - 1) {
		/*
		 * As if it came late: once the reporter stopped waiting, however
		 * long the host left either vCPU unrun (a fixed delay was not
		 * always past the reporter's deadline on a loaded host). The
		 * reporter, another CPU, always ends its wait (ask()).
		 */
		while (__atomic_load_n(&w->ask, __ATOMIC_RELAXED) == ASK_PENDING) {
			cpu_relax();
		}
	}
	/*
	 * relaxed: the acquire load of nmi_sent saw the ask sent with it;
	 * losing to the reporter's swap to ASK_NONE means the report stopped
	 * waiting (ask()).
	 */
	uint32_t pending = ASK_PENDING;
	if (!__atomic_compare_exchange_n(&w->ask, &pending, ASK_TAKING, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED)) {
		/* relaxed: a count, for `cpus` (watchdog_cpu_state()) */
		__atomic_add_fetch(&w->nmi_late, 1, __ATOMIC_RELAXED);
		return true;
	}
	take_snapshot(&w->snap, f, c);
	/* release: the snapshot is seen whole by the reporter's acquire load */
	__atomic_store_n(&w->ask, ASK_ANSWERED, __ATOMIC_RELEASE);
	return true;
}

/*
 * Asks the CPUs in who but me for their state by NMI, but one that has
 * not taken the last NMI sent to it yet; waits a while for the answers.
 * Returns the CPUs that answered (*sent: those asked); every other one's
 * NMI, should it come, is late (watchdog_nmi()). Copies each answer into
 * snaps[].
 */
static uint64_t ask(uint32_t me, uint64_t who, uint64_t *sent)
{
	uint64_t asked = 0, answered = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		struct watch *o = &watches[i];
		/* acquire: pairs with the release store of nmi_taken in watchdog_nmi() */
		if (i == me || !(who >> i & 1) ||
		    __atomic_load_n(&o->nmi_taken, __ATOMIC_ACQUIRE) != o->nmi_sent) {
			continue;
		}
		/* relaxed: the release increment of nmi_sent below publishes it */
		__atomic_store_n(&o->ask, ASK_PENDING, __ATOMIC_RELAXED);
		/* release: pairs with the acquire load in watchdog_nmi() */
		__atomic_store_n(&o->nmi_sent, o->nmi_sent + 1, __ATOMIC_RELEASE);
		apic_send_nmi(cpus[i].apic_id);
		asked |= 1ull << i;
	}
	uint64_t deadline = rdtsc() + timer_tsc_hz() / 1000 * WATCHDOG_NMI_WAIT_MS;
	for (uint32_t i = 0; i < ncpus; i++) {
		while (asked >> i & 1 &&
		       __atomic_load_n(&watches[i].ask, __ATOMIC_ACQUIRE) != ASK_ANSWERED &&
		       rdtsc() < deadline) {
			cpu_relax();
		}
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		if (!(asked >> i & 1)) {
			continue;
		}
		/* relaxed: winning makes an NMI that comes after this late (watchdog_nmi()) */
		uint32_t pending = ASK_PENDING;
		if (__atomic_compare_exchange_n(&watches[i].ask, &pending, ASK_NONE, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			continue;
		}
		/*
		 * The CPU claimed the ask in time: its snapshot is a few stores
		 * away. acquire: pairs with the release store of ASK_ANSWERED in
		 * watchdog_nmi().
		 */
		while (__atomic_load_n(&watches[i].ask, __ATOMIC_ACQUIRE) != ASK_ANSWERED) {
			cpu_relax();
		}
		snaps[i] = watches[i].snap;
		answered |= 1ull << i;
		/* relaxed: the next ask's PENDING is published by nmi_sent's release increment */
		__atomic_store_n(&watches[i].ask, ASK_NONE, __ATOMIC_RELAXED);
	}
	*sent = asked;
	return answered;
}

/*
 * From CPU me's tick, after it counted itself: notes which CPUs took a
 * tick since its last, so that unticked() counts in me's ticks.
 */
static void sight(uint32_t me)
{
	struct watch *w = &watches[me];

	for (uint32_t i = 0; i < ncpus; i++) {
		/* relaxed: a count only its owner changes; a change is all that matters */
		uint64_t ticks = __atomic_load_n(&watches[i].ticks, __ATOMIC_RELAXED);
		if (ticks != w->seen[i].ticks) {
			__atomic_store_n(&w->seen[i].at, w->ticks, __ATOMIC_RELAXED);
			/* release: pairs with the acquire load in unticked() */
			__atomic_store_n(&w->seen[i].ticks, ticks, __ATOMIC_RELEASE);
		}
	}
}

/*
 * CPU i's silence in the time CPU me ran: me's ticks since it saw i take
 * one, ticks being i's count now; 0 if i took one since (me has not seen
 * it yet, as when i took its first). Read on me, in its tick, or
 * anywhere for a value that is only printed (watchdog_cpu_state()).
 */
static uint64_t unticked(uint32_t me, uint32_t i, uint64_t ticks)
{
	const struct watch *w = &watches[me];

	/* acquire: pairs with the release store in sight(): at is the one seen with ticks */
	if (ticks != __atomic_load_n(&w->seen[i].ticks, __ATOMIC_ACQUIRE)) {
		return 0;
	}
	/* relaxed: me's own count, and a time of it */
	uint64_t at = __atomic_load_n(&w->seen[i].at, __ATOMIC_RELAXED);
	uint64_t now = __atomic_load_n(&w->ticks, __ATOMIC_RELAXED);
	return now > at ? now - at : 0;
}

/*
 * The CPUs, this one (me) among them, watched and not yet reported,
 * silent for more than limit ticks: by their own ticks, or taking none by
 * ours. Notes in seen[] (suspects[] for the reporter, NULL else) what was
 * seen of each.
 */
static uint64_t silent_cpus(uint32_t me, uint64_t limit, struct suspect *seen)
{
	uint64_t silent = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		struct watch *o = &watches[i];
		/* acquire: pairs with the release store of armed in watchdog_tick() */
		if (!__atomic_load_n(&o->armed, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&o->reported, __ATOMIC_RELAXED)) {
			continue;
		}
		/* relaxed: the owner's counts, each read once */
		struct suspect s = {
		    .ticks = __atomic_load_n(&o->ticks, __ATOMIC_RELAXED),
		    .silent_ticks = __atomic_load_n(&o->silent_ticks, __ATOMIC_RELAXED),
		};
		s.unticked = unticked(me, i, s.ticks);
		s.masked = s.unticked > limit;
		if (s.silent_ticks >= limit || s.masked) {
			if (seen) {
				seen[i] = s;
			}
			silent |= 1ull << i;
		}
	}
	return silent;
}

/*
 * Of the CPUs in silent, those still as silent_cpus() saw them: no
 * progress since, and those suspected for taking no tick still without
 * one, with interrupts masked in their last answer (from answered).
 */
static uint64_t still_silent(uint64_t silent, uint64_t answered)
{
	uint64_t still = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		const struct watch *o = &watches[i];
		const struct suspect *s = &suspects[i];
		if (!(silent >> i & 1)) {
			continue;
		}
		/* relaxed: counts only the owner changes; a change means progress or a tick */
		uint32_t quiet = __atomic_load_n(&o->silent_ticks, __ATOMIC_RELAXED);
		uint64_t ticks = __atomic_load_n(&o->ticks, __ATOMIC_RELAXED);
		if (quiet < s->silent_ticks) {
			continue; /* it made progress since */
		}
		if (s->masked &&
		    (ticks != s->ticks || !(answered >> i & 1) || snaps[i].rflags & RFLAGS_IF)) {
			continue;
		}
		still |= 1ull << i;
	}
	return still;
}

/*
 * Of the CPUs in silent (me among them perhaps), those the NMI shows
 * stuck. A CPU silent by its own ticks is; one suspected for taking no
 * tick must answer WATCHDOG_MASKED_ANSWERS times, a tick's period apart,
 * still without a tick and with interrupts masked. *answered: the CPUs
 * whose snapshot snaps[] has; *unanswered: the suspects that did not
 * answer, which cannot be judged.
 */
static uint64_t confirm(uint32_t me, uint64_t silent, uint64_t *answered, uint64_t *unanswered)
{
	uint64_t masked = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		if (silent >> i & 1 && suspects[i].masked) {
			masked |= 1ull << i;
		}
	}
	uint64_t sent;
	*answered = ask(me, silent, &sent);
	*unanswered = silent & ~*answered & ~(1ull << me);
	uint64_t stuck = still_silent(silent & ~(masked & *unanswered), *answered);
	for (int n = 1; n < WATCHDOG_MASKED_ANSWERS && stuck & masked; n++) {
		/* Time for a CPU that runs to unmask and take its pending tick. */
		timer_delay_us(1000000 / TIMER_HZ);
		uint64_t again = ask(me, stuck & masked, &sent);
		*unanswered |= stuck & masked & ~again;
		stuck = still_silent(stuck & ~(masked & ~again), again | (*answered & ~masked));
	}
	return stuck;
}

/*
 * Who runs on CPU i, as its snapshot s shows it: "idle" only when it
 * idles. Its idle thread does not when the CPU is stuck, nor when it spins
 * on a lock or has interrupts masked (in an interrupt of the idle thread,
 * say). A CPU silent for less than half the limit is not judged at all
 * (look()), so one that began to spin with interrupts masked shortly
 * before the report may be on its way to being stuck.
 */
static void print_thread(uint32_t i, const struct snapshot *s, bool stuck)
{
	const struct thread *t = s->thread;
	bool idling = !stuck && s->rflags & RFLAGS_IF && !s->spinning_on;

	if (!t || (t == cpus[i].idle && idling)) {
		printk("idle");
	} else if (t == cpus[i].idle) {
		printk("kernel tid %u (the idle thread, not idling)", t->tid);
	} else if (t->proc) {
		printk("pid %u tid %u (%s)", t->proc->pid, t->tid, t->proc->name);
	} else {
		printk("kernel tid %u", t->tid);
	}
}

/* CPU i's lines, from snaps[i]; have: the CPUs whose snapshot the report has. */
static void print_cpu(uint32_t i, uint64_t have, uint64_t stuck)
{
	const struct snapshot *s = &snaps[i];

	printk("cpu %u: ", i);
	print_thread(i, s, stuck >> i & 1);
	printk(", rip 0x%016lx%s, interrupts %s", s->rip, (s->cs & 3) == 3 ? " (user)" : "",
	       s->rflags & RFLAGS_IF ? "on" : "masked");
	if (s->spinning_on) {
		printk(", spinning on lock %p", (const void *)s->spinning_on);
	}
	if (s->spinning_on && s->holder) {
		/*
		 * A spinlock is its CPU's rather than a thread's (a run
		 * queue's goes across a switch): the holder's thread is the
		 * one its CPU runs.
		 */
		uint32_t h = s->holder - 1;
		printk(" held by cpu %u", h);
		if (h < ncpus && have >> h & 1 && snaps[h].thread) {
			printk(" (tid %u)", snaps[h].thread->tid);
		}
	}
	if (stuck & (1ull << i)) {
		/*
		 * The time it ran without progress, by its own ticks, and for
		 * one that takes none, the time since its last, by ours.
		 */
		const struct suspect *z = &suspects[i];
		uint64_t ms = (z->silent_ticks + (z->masked ? z->unticked : 0)) * 1000 / TIMER_HZ;
		printk(", stuck for %lu.%03lu s", ms / 1000, ms % 1000);
	}
	printk("\n");
	if ((s->cs & 3) != 3) {
		panic_stack_walk(s->rip, s->rbp);
	}
}

/*
 * The report of the CPUs in stuck (confirm()), by this CPU (me), from its
 * timer interrupt f; answered and unanswered as confirm() left them.
 */
static void report(uint32_t me, const struct trap_frame *f, uint64_t stuck, uint64_t answered,
		   uint64_t unanswered)
{
	uint64_t asked;
	size_t recorded = 0;

	printk("\nWATCHDOG:");
	for (uint32_t i = 0; i < ncpus; i++) {
		if (stuck & (1ull << i)) {
			printk(" cpu %u", i);
		}
	}
	printk(" stuck: no schedule or return to user (ttrace.watchdog=%lu)\n", kopts.watchdog_s);
	uint64_t rest = ~(answered | unanswered | 1ull << me);
	uint64_t have = answered | ask(me, rest, &asked) | 1ull << me;
	take_snapshot(&snaps[me], f, &cpus[me]);
	for (uint32_t i = 0; i < ncpus; i++) {
		if (have >> i & 1) {
			print_cpu(i, have, stuck);
		} else if ((asked | unanswered) >> i & 1) {
			printk("cpu %u: did not answer the NMI in %u ms\n", i,
			       WATCHDOG_NMI_WAIT_MS);
		} else {
			printk("cpu %u: has not taken the NMI of an earlier report yet\n", i);
		}
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		recorded += ttrace_flight_recorder(i);
	}
	if (!recorded) {
		printk("WATCHDOG: the flight recorder is empty: boot with ttrace=all (or "
		       "ttrace=CATS, a list of categories) to fill it\n");
	}
	if (kopts.watchdog_panic) {
		panic("watchdog: a cpu is stuck (ttrace.watchdog_panic=1)");
	}
	printk("WATCHDOG: going on (ttrace.watchdog_panic=1 panics instead)\n");
}

/*
 * Looks for stuck CPUs, from this CPU's (me's) timer interrupt f, and
 * reports them. A hang seldom catches its CPUs at the same instant: a
 * report names, as one stall, every CPU silent for half the limit too,
 * but is made only when one of them has been for the whole limit.
 */
static void look(uint32_t me, const struct trap_frame *f, uint64_t limit)
{
	uint64_t answered, unanswered, over = 0;
	uint64_t stuck = confirm(me, silent_cpus(me, limit / 2, suspects), &answered, &unanswered);

	for (uint32_t i = 0; i < ncpus; i++) {
		const struct suspect *s = &suspects[i];
		if (stuck >> i & 1 && (s->silent_ticks >= limit || s->unticked > limit)) {
			over |= 1ull << i;
		}
	}
	if (!over) {
		return; /* nothing to report: nothing, not even a header, is printed */
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		if ((stuck | unanswered) >> i & 1) {
			/* relaxed: read by this CPU or the next reporter, after reporting */
			__atomic_store_n(&watches[i].reporter, me, __ATOMIC_RELAXED);
			__atomic_store_n(&watches[i].reported, true, __ATOMIC_RELAXED);
		}
	}
	report(me, f, stuck, answered, unanswered);
}

void watchdog_tick(const struct trap_frame *f)
{
	if (!kopts.watchdog_s) {
		return;
	}
	struct cpu *c = this_cpu();
	struct watch *w = &watches[c->id];
	uint64_t limit = kopts.watchdog_s * TIMER_HZ; /* in ticks */

	/* relaxed: only a count, see still_silent() and sight() */
	__atomic_store_n(&w->ticks, w->ticks + 1, __ATOMIC_RELAXED);
	sight(c->id);
	/* relaxed: progressed is this CPU's own */
	if ((f->cs & 3) == 3 || c->current == c->idle ||
	    __atomic_exchange_n(&c->progressed, false, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&w->armed, __ATOMIC_RELAXED)) {
		__atomic_store_n(&w->silent_ticks, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&w->armed, true, __ATOMIC_RELEASE);
		__atomic_store_n(&w->reported, false, __ATOMIC_RELAXED);
	} else if (__atomic_add_fetch(&w->silent_ticks, 1, __ATOMIC_RELAXED) > limit / 4) {
		/*
		 * A thread that only makes system calls (their return skips the
		 * scheduler) shows its progress at the next one. Asked only after
		 * a quarter of the limit, so the scheduling of a busy CPU does not
		 * change every tick.
		 */
		__atomic_store_n(&c->need_resched, true, __ATOMIC_RELAXED);
	}
	uint32_t idle = 0;
	/* acquire: the last report's reported flags are seen */
	if (silent_cpus(c->id, limit, NULL) &&
	    __atomic_compare_exchange_n(&reporting, &idle, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		look(c->id, f, limit);
		/* release: pairs with the acquire above */
		__atomic_store_n(&reporting, 0, __ATOMIC_RELEASE);
	}
}

void watchdog_cpu_state(uint32_t cpu, struct watchdog_cpu *s)
{
	const struct watch *w = &watches[cpu];
	uint64_t half = kopts.watchdog_s * TIMER_HZ / 2; /* in ticks */
	/* acquire: pairs with the release store of armed in watchdog_tick() */
	bool armed = __atomic_load_n(&w->armed, __ATOMIC_ACQUIRE);
	/* relaxed: counts and a CPU's id, only printed */
	uint64_t quiet = __atomic_load_n(&w->silent_ticks, __ATOMIC_RELAXED);
	uint64_t ticks = __atomic_load_n(&w->ticks, __ATOMIC_RELAXED);
	uint32_t reporter = __atomic_load_n(&w->reporter, __ATOMIC_RELAXED);
	uint64_t ns_per_tick = 1000000000ull / TIMER_HZ;

	*s = (struct watchdog_cpu){.late_nmis = __atomic_load_n(&w->nmi_late, __ATOMIC_RELAXED)};
	if (!kopts.watchdog_s || !armed) {
		return;
	}
	/*
	 * A CPU without ticks is called stuck only once a report confirmed it
	 * (confirm()): by its silence alone, a CPU the host does not run looks
	 * the same. Its silence is counted as the report counted it, in its
	 * reporter's ticks.
	 */
	uint64_t gone = unticked(reporter, cpu, ticks);
	if (__atomic_load_n(&w->reported, __ATOMIC_RELAXED) && gone > half) {
		s->stuck_ns = (quiet + gone) * ns_per_tick;
		s->irqs_masked = true;
	} else if (quiet >= half) {
		s->stuck_ns = quiet * ns_per_tick;
	}
}
