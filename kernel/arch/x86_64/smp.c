/*
 * smp: INIT-SIPI-SIPI (SDM 3A 9.4.4.1, "typical BSP initialization
 * sequence") and cross-CPU calls over a fixed IPI vector, which also
 * stops the other CPUs while one changes kernel code.
 */
#include "arch/x86_64/smp.h"

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
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
#define AP_START_TIMEOUT_US 1000000

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

/* Where every AP enters C from the trampoline: ap_setup(c), after inject=aplate's hold. */
__attribute__((noreturn)) static void ap_started(struct cpu *c)
{
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
 * Starts the CPU of c (id and apic_id filled) at entry; false if it did
 * not come online in time. With dead, it gets no start-up IPIs, as a CPU
 * that is dead would not answer them (inject=apstart): the failure path
 * runs as it would for real.
 */
static bool start_one(struct cpu *c, bool dead)
{
	struct trampoline_params *p =
	    phys_to_virt(TRAMPOLINE_BASE + ((uintptr_t)tramp_params - (uintptr_t)ap_trampoline));

	p->cr3 = virt_to_phys(boot_pml4);
	p->stack = (uintptr_t)(c->kstack + KSTACK_SIZE);
	p->cpu = (uintptr_t)c;
	p->entry = (uintptr_t)ap_started;

	if (!dead) {
		apic_send_init(c->apic_id);
		timer_delay_us(INIT_DELAY_US);
		for (int sipi = 0; sipi < 2 && !cpu_online(c); sipi++) {
			apic_send_startup(c->apic_id, TRAMPOLINE_BASE >> PAGE_SHIFT);
			timer_delay_us(SIPI_DELAY_US);
		}
	}
	for (uint64_t waited = 0; !cpu_online(c) && waited < AP_START_TIMEOUT_US; waited += 100) {
		timer_delay_us(100);
	}
	__atomic_store_n(&ap_wait_spent, true, __ATOMIC_RELEASE);
	if (cpu_online(c)) {
		return true;
	}
	/* Park it again so it cannot run later on parameters meant for another CPU. */
	apic_send_init(c->apic_id);
	return false;
}

static void call_ipi(struct trap_frame *f)
{
	(void)f;
	struct cpu *c = this_cpu();

	/* acquire: pairs with the release store of call_pending in smp_call_others() */
	if (__atomic_load_n(&c->call_pending, __ATOMIC_ACQUIRE)) {
		c->call_fn(c->call_arg);
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
		c->call_fn = fn;
		c->call_arg = arg;
		/* release: publishes call_fn/call_arg to call_ipi() */
		__atomic_store_n(&c->call_pending, 1, __ATOMIC_RELEASE);
		apic_send_ipi(c->apic_id, VECTOR_CALL);
		sent++;
	}
	return sent;
}

/* call_lock held: waits until every call sent has returned. */
static void wait_calls(void)
{
	for (uint32_t i = 0; i < ncpus; i++) {
		/* acquire: pairs with the release store of 0 in call_ipi() */
		while (__atomic_load_n(&cpus[i].call_pending, __ATOMIC_ACQUIRE)) {
			cpu_relax();
		}
	}
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

void smp_stop_others(void (*fn)(void *arg), void *arg)
{
	uint64_t flags;

	if (ncpus == 1) {
		flags = irq_save();
		fn(arg);
		irq_restore(flags);
		return;
	}
	KASSERT(irq_enabled());
	/*
	 * Interrupts stay on until every other CPU is parked: a CPU calling
	 * smp_call_others() meanwhile spins for call_lock with interrupts on,
	 * so it parks too.
	 */
	spin_lock(&call_lock);
	/* relaxed: send_calls()' release store of call_pending publishes both */
	__atomic_store_n(&stopped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&restart, 0, __ATOMIC_RELAXED);
	uint32_t others = send_calls(UINT64_MAX, park, NULL);
	/* acquire: pairs with the release increment in park() */
	while (__atomic_load_n(&stopped, __ATOMIC_ACQUIRE) < others) {
		cpu_relax();
	}
	flags = irq_save();
	fn(arg);
	serialize_cpu();
	irq_restore(flags);
	/* release: pairs with the acquire load in park() */
	__atomic_store_n(&restart, 1, __ATOMIC_RELEASE);
	wait_calls();
	spin_unlock(&call_lock);
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
