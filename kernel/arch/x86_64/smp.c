/*
 * smp: INIT-SIPI-SIPI (SDM 3A 9.4.4.1, "typical BSP initialization
 * sequence") and cross-CPU calls over a fixed IPI vector, which also
 * stops the other CPUs while one changes kernel code.
 */
#include "arch/x86_64/smp.h"

#include "abi/errno.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/restart.h"
#include "arch/x86_64/timer.h"
#include "init/options.h"
#include "lib/panic.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/memlayout.h"

#define TRAMPOLINE_BASE	    0x8000 /* below 1 MiB, page aligned: SIPI vector 0x08 */
#define INIT_DELAY_US	    10000
#define SIPI_DELAY_US	    200
#define AP_START_TICKS	    TIMER_HZ /* a second of the boot CPU's own running: start_one() */
#define CPUID_APIC_ID_SHIFT 24	     /* CPUID.1:EBX[31:24], the initial APIC id (SDM 2A CPUID) */

struct trampoline_params {
	uint64_t cr3; /* the boot page tables: below 4 GiB, identity map low memory */
	uint64_t stack;
	uint64_t cpu;
	uint64_t entry;
};

extern char ap_trampoline[], ap_trampoline_end[], tramp_params[];
extern char boot_pml4[];

static struct spinlock call_lock = SPINLOCK_INIT;

/* smp_start_aps(): [I] while APs start. */
static void (*ap_setup)(struct cpu *c); /* what an AP runs once it runs its own code */
static bool ap_late;			/* inject=aplate: the first AP holds first */
static bool ap_wait_spent; /* [a] the boot CPU's wait for the AP starting has run out */
/*
 * [a] Who has the start under way, decided by one compare-and-swap from
 * 0: the AP with its APIC id + 1 (it runs), or the boot CPU with
 * AP_GIVEN_UP (it does not, and will not: it parks itself if it comes).
 */
static uint32_t ap_claim;
#define AP_GIVEN_UP UINT32_MAX

/* smp_stop_others(): [call_lock] reset by the stopper; [a] changed by the stopped CPUs. */
static uint32_t stopped; /* CPUs waiting in park() */
static uint32_t restart; /* set when they may go on */

static bool cpu_online(const struct cpu *c)
{
	/* acquire: pairs with the release store in smp_cpu_online() */
	return __atomic_load_n(&c->online, __ATOMIC_ACQUIRE);
}

void smp_cpu_online(struct cpu *c)
{
	/* release: what the CPU set up is seen by whoever sees it online */
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
}

/*
 * Where every AP enters C from the trampoline: it claims its start, then
 * sets itself up with ap_setup(c). It names itself by the APIC id CPUID
 * gives, which needs nothing set up. If the boot CPU has given up on it
 * first, it parks for good: its slot may be another CPU's already.
 */
__attribute__((noreturn)) static void ap_started(struct cpu *c)
{
	uint32_t a, b, ecx, d, none = 0;

	cpuid(1, &a, &b, &ecx, &d);
	/* acq_rel: pairs with the boot CPU's compare-and-swap in start_one() */
	if (!__atomic_compare_exchange_n(&ap_claim, &none, (b >> CPUID_APIC_ID_SHIFT) + 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		cpu_halt_forever();
	}
	if (ap_late && c->id == 1) {
		/* acquire: pairs with the release store in start_one() */
		while (!__atomic_load_n(&ap_wait_spent, __ATOMIC_ACQUIRE)) {
			cpu_relax();
		}
	}
	ap_setup(c);
	__builtin_unreachable();
}

/*
 * Whether the AP of c runs, deciding it if nobody has yet: after this
 * false, it never will.
 */
static bool give_up_unless_running(const struct cpu *c)
{
	uint32_t none = 0;

	/* acq_rel: pairs with the AP's compare-and-swap in ap_started() */
	if (__atomic_compare_exchange_n(&ap_claim, &none, AP_GIVEN_UP, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		return false;
	}
	return none == c->apic_id + 1;
}

/*
 * Starts the CPU of c (id and apic_id filled); false if it did not start.
 * With dead, it gets no start-up IPIs, as a CPU that is dead would not
 * answer them (inject=apstart): the failure path runs as it would for
 * real. Interrupts on: the wait counts this CPU's ticks.
 *
 * The wait for the AP to run is counted in this CPU's own ticks, not by
 * the TSC. Under TCG each vCPU is a host thread and the TSC follows the
 * host's clock, so on a loaded host a second by the TSC can pass without
 * the AP's vCPU being run at all (nor this one). A CPU takes its ticks
 * only while it runs (those it missed meanwhile come as one), so
 * AP_START_TICKS of them mean that this CPU ran for a second, in which a
 * host sharing its cores fairly ran the AP's vCPU too: an AP that has
 * not claimed its start by then is taken for dead, and one that comes
 * after that parks itself (ap_started()). One that has run is waited for
 * until it is online, however long that takes: from ap_started() it
 * only sets itself up, waiting for nothing, and an INIT in the middle of
 * that could leave a lock it holds (the heap's) taken for ever.
 */
static bool start_one(struct cpu *c, bool dead)
{
	struct trampoline_params *p =
	    phys_to_virt(TRAMPOLINE_BASE + ((uintptr_t)tramp_params - (uintptr_t)ap_trampoline));
	const uint64_t *ticks = &this_cpu()->ticks;

	KASSERT(irq_enabled());
	p->cr3 = virt_to_phys(boot_pml4);
	p->stack = (uintptr_t)(c->kstack + KSTACK_SIZE);
	p->cpu = (uintptr_t)c;
	p->entry = (uintptr_t)ap_started;

	/*
	 * relaxed: the AP claims only after the start-up IPIs below, and x86
	 * does not move their writes to the APIC (out-of-line calls, uncached
	 * stores) ahead of this store (SDM 3A 8.2.2).
	 */
	__atomic_store_n(&ap_claim, 0, __ATOMIC_RELAXED);
	uint64_t from = __atomic_load_n(ticks, __ATOMIC_RELAXED);
	if (!dead) {
		apic_send_init(c->apic_id);
		timer_delay_us(INIT_DELAY_US);
		for (int sipi = 0; sipi < 2 && !__atomic_load_n(&ap_claim, __ATOMIC_RELAXED);
		     sipi++) {
			apic_send_startup(c->apic_id, TRAMPOLINE_BASE >> PAGE_SHIFT);
			timer_delay_us(SIPI_DELAY_US);
		}
	}
	while (!cpu_online(c)) {
		if (__atomic_load_n(ticks, __ATOMIC_RELAXED) - from >= AP_START_TICKS) {
			__atomic_store_n(&ap_wait_spent, true, __ATOMIC_RELEASE);
			if (!give_up_unless_running(c)) {
				/* Parked for good: it cannot run later on parameters meant for
				 * another CPU. */
				apic_send_init(c->apic_id);
				return false;
			}
		}
		cpu_relax();
	}
	return true;
}

static void park(void *arg);

static void call_ipi(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	/* acquire: pairs with the release store of call_pending in smp_call_others() */
	if (__atomic_load_n(&c->call_pending, __ATOMIC_ACQUIRE)) {
		c->call_fn(c->call_arg);
		/*
		 * A CPU stopped inside a restartable range goes on from its
		 * start, through the code the stopper may have changed
		 * (restart.h); before call_pending is 0, while call_fn is ours.
		 */
		if (c->call_fn == park) {
			restart_fixup(f);
		}
		/* release: the caller may reuse what fn read once it sees 0 */
		__atomic_store_n(&c->call_pending, 0, __ATOMIC_RELEASE);
	}
}

void smp_start_aps(uint32_t max_cpus, void (*entry)(struct cpu *c))
{
	struct cpu *bsp = &cpus[0];
	bool dead = kopts.inject == INJECT_APSTART; /* the first AP's start fails */

	ap_setup = entry;
	ap_late = kopts.inject == INJECT_APLATE;
	idt_set_handler(VECTOR_CALL, call_ipi);
	memcpy(phys_to_virt(TRAMPOLINE_BASE), ap_trampoline,
	       (uintptr_t)ap_trampoline_end - (uintptr_t)ap_trampoline);
	smp_cpu_online(bsp);
	for (uint32_t i = 0; i < acpi_madt.ncpus && ncpus < max_cpus; i++) {
		uint32_t id = acpi_madt.apic_ids[i];
		if (id == bsp->apic_id) {
			continue;
		}
		struct cpu *c = &cpus[ncpus];
		c->id = ncpus;
		c->apic_id = id;
		if (start_one(c, dead)) {
			ncpus++;
		} else {
			printk("smp: cpu with APIC id %u did not start\n", id);
			/*
			 * The next CPU takes this slot: it starts from zero, as
			 * every slot does, and sets up what it needs itself when
			 * it comes online (its trace ring included).
			 */
			memset(c, 0, sizeof(*c));
		}
		dead = false;
	}
}

/* call_lock held: sends fn(arg) to every other online CPU in mask; returns how many. */
static uint32_t send_calls(uint64_t mask, void (*fn)(void *arg), void *arg)
{
	struct cpu *me = this_cpu();
	uint32_t sent = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		if (c == me || !cpu_online(c) || !(mask >> i & 1)) {
			continue;
		}
		/*
		 * A park a stop gave up on may still be pending: the CPU could
		 * read call_fn and call_arg at any time, so they change only
		 * once it has taken it. acquire: pairs with call_ipi()'s store of 0.
		 */
		while (__atomic_load_n(&c->call_pending, __ATOMIC_ACQUIRE)) {
			cpu_relax();
		}
		c->call_fn = fn;
		c->call_arg = arg;
		/* release: publishes call_fn/call_arg to call_ipi() */
		__atomic_store_n(&c->call_pending, 1, __ATOMIC_RELEASE);
		apic_send_ipi(c->apic_id, VECTOR_CALL);
		sent++;
	}
	return sent;
}

/*
 * call_lock held: waits until every call sent has returned, or until
 * timer_now_ns() passes deadline_ns (UINT64_MAX: for ever). Returns
 * whether they all returned.
 */
static bool wait_calls_until(uint64_t deadline_ns)
{
	for (uint32_t i = 0; i < ncpus; i++) {
		/* acquire: pairs with the release store of 0 in call_ipi() */
		while (__atomic_load_n(&cpus[i].call_pending, __ATOMIC_ACQUIRE)) {
			if (deadline_ns != UINT64_MAX && timer_now_ns() > deadline_ns) {
				return false;
			}
			cpu_relax();
		}
	}
	return true;
}

static void wait_calls(void)
{
	(void)wait_calls_until(UINT64_MAX);
}

void smp_call_others(void (*fn)(void *arg), void *arg)
{
	smp_call_some(UINT64_MAX, fn, arg);
}

void smp_call_some(uint64_t mask, void (*fn)(void *arg), void *arg)
{
	if (ncpus == 1) {
		return;
	}
	KASSERT(irq_enabled());
	/* Interrupts stay on while we spin, so calls from others still get answered. */
	spin_lock(&call_lock);
	send_calls(mask, fn, arg);
	wait_calls();
	spin_unlock(&call_lock);
}

/* A stopped CPU, in call_ipi() with interrupts off, until the stopper has run its fn. */
static void park(void *arg)
{
	(void)arg;
	/* release: pairs with the stopper's acquire load; nothing of ours follows until restart */
	__atomic_add_fetch(&stopped, 1, __ATOMIC_RELEASE);
	/* acquire: pairs with the release store of restart: fn's stores, code included, are seen */
	while (!__atomic_load_n(&restart, __ATOMIC_ACQUIRE)) {
		cpu_relax();
	}
	serialize_cpu(); /* the code fn changed is fetched anew (SDM 3A 8.1.3) */
}

int smp_stop_others(void (*fn)(void *arg), void *arg)
{
	uint64_t flags;

	if (ncpus == 1) {
		flags = irq_save();
		fn(arg);
		irq_restore(flags);
		return 0;
	}
	KASSERT(irq_enabled());
	/*
	 * Interrupts stay on until every other CPU is parked: a CPU calling
	 * smp_call_others() meanwhile spins for call_lock with interrupts on,
	 * so it parks too.
	 */
	spin_lock(&call_lock);
	uint64_t deadline = timer_now_ns() + SMP_STOP_WAIT_MS * 1000000ull;
	/*
	 * A CPU that did not answer a stop that gave up still has its park
	 * pending: stopped and restart are not reset under it, so it can
	 * never be counted as stopped by this stop, nor wait on it.
	 */
	if (!wait_calls_until(deadline)) {
		spin_unlock(&call_lock);
		return -ECPUSTUCK;
	}
	/* relaxed: send_calls()' release store of call_pending publishes both */
	__atomic_store_n(&stopped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&restart, 0, __ATOMIC_RELAXED);
	uint32_t others = send_calls(UINT64_MAX, park, NULL);
	int err = 0;
	/* acquire: pairs with the release increment in park() */
	while (!err && __atomic_load_n(&stopped, __ATOMIC_ACQUIRE) < others) {
		err = timer_now_ns() > deadline ? -ECPUSTUCK : 0;
		cpu_relax();
	}
	if (!err) {
		flags = irq_save();
		fn(arg);
		serialize_cpu();
		irq_restore(flags);
	}
	/* release: pairs with the acquire load in park(); a late one goes on at once */
	__atomic_store_n(&restart, 1, __ATOMIC_RELEASE);
	if (!err) {
		wait_calls();
	}
	spin_unlock(&call_lock);
	return err;
}

uint32_t smp_wait_ticking(uint64_t min_ticks, uint64_t timeout_ms)
{
	uint32_t silent = ncpus;

	for (uint64_t waited = 0;; waited++) {
		silent = 0;
		for (uint32_t i = 0; i < ncpus; i++) {
			if (__atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED) < min_ticks) {
				silent++;
			}
		}
		if (!silent || waited >= timeout_ms) {
			return silent;
		}
		timer_delay_us(1000);
	}
}
